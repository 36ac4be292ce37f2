import { Lexer } from 'marked';
import { describe, expect, it } from 'vitest';
import { GROUP_SIZE, IncrementalMarkdown, type MarkdownView } from '../../../src/markdown/incremental.js';

const SAMPLE = `# Title

A paragraph with **bold** and a [link](https://x.test).

- one
- two
  - nested

\`\`\`ts
const a = 1;

const b = 2;
\`\`\`

| a | b |
|---|---|
| 1 | 2 |

Setext heading
--------------

> quoted
> text

Final words.`;

const flatten = (view: MarkdownView) => [...view.groups.flat(), ...view.tail];
/** Compare structure, not object identity. */
const shape = (tokens: unknown) => JSON.parse(JSON.stringify(tokens));

describe('IncrementalMarkdown', () => {
  it('gives the same blocks as a full parse at every prefix of a streamed answer', () => {
    const md = new IncrementalMarkdown();
    for (let end = 1; end <= SAMPLE.length; end += 1) {
      const prefix = SAMPLE.slice(0, end);
      expect(shape(flatten(md.update(prefix))), `at ${end}`).toEqual(shape(new Lexer({ gfm: true }).lex(prefix)));
    }
  });

  it('keeps frozen token objects and full groups identical across updates', () => {
    const md = new IncrementalMarkdown();
    const paragraphs = Array.from({ length: GROUP_SIZE * 2 + 3 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
    const before = md.update(paragraphs);
    const after = md.update(`${paragraphs} More words`);
    expect(after.groups[0]).toBe(before.groups[0]);
    expect(after.groups[1]).toBe(before.groups[1]);
    expect(after.groups[0]).toHaveLength(GROUP_SIZE);
    expect(after.tail[0].raw).toBe('Paragraph 130. More words');
  });

  it('re-lexes only the last block per update', () => {
    const md = new IncrementalMarkdown();
    let text = '';
    let lexedChars = 0;
    let fullReparseChars = 0;
    const original = Lexer.prototype.lex;
    Lexer.prototype.lex = function (src: string) {
      lexedChars += src.length;
      return original.call(this, src);
    };
    try {
      for (let i = 0; i < 200; i += 1) {
        text += `Sentence number ${i} of a long answer.${i % 5 === 4 ? '\n\n' : ' '}`;
        md.update(text);
        fullReparseChars += text.length;
      }
    } finally {
      Lexer.prototype.lex = original;
    }
    // Each update lexes the open paragraph (under 200 characters), not the whole answer.
    expect(lexedChars / 200).toBeLessThan(200);
    expect(lexedChars).toBeLessThan(fullReparseChars / 15);
  });

  it('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown();
    md.update('First answer.\n\nSecond block');
    expect(shape(flatten(md.update('Different')))).toEqual(shape(new Lexer().lex('Different')));
  });

  it('finish() gives the exact full parse, reference links included', () => {
    const md = new IncrementalMarkdown();
    const text = 'See [docs][d].\n\n[d]: https://docs.test';
    md.update(text);
    const link = flatten(md.finish(text))[0] as { tokens: Array<{ type: string; href?: string }> };
    expect(link.tokens.find((t) => t.type === 'link')?.href).toBe('https://docs.test');
  });
});
