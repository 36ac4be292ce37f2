import { describe, expect, it } from 'vitest';
import { GROUP_SIZE, IncrementalMarkdown, type MarkdownView } from '../../../src/markdown/incremental.js';
import { lex, MARKDOWN_LIMIT } from '../../../src/markdown/parse.js';

const SAMPLE = `# Title

A paragraph with **bold**, \`code\` and a [link](https://x.test).
1. First step

   Its continuation paragraph.

2) Second step
   - nested item

\`\`\`ts
const a = 1;

const b = 2;
\`\`\`

| a | b |
|---|---|
| 1 | 2 |

> quoted
>
> second quoted paragraph

Setext heading
--------------

See [the docs][docs].

[docs]: https://docs.test/

Final words.`;

const flatten = (view: MarkdownView) => [...view.groups.flat(), ...view.tail];
/** Tokens without the lexer's bookkeeping, for comparing two lexes of the same text. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('IncrementalMarkdown', () => {
  it('finishes with exactly the tokens of the whole text, however the text arrived', () => {
    for (const step of [1, 7, 19]) {
      const streamed = new IncrementalMarkdown();
      for (let end = 1; end < SAMPLE.length; end += step) streamed.update(SAMPLE.slice(0, end));
      expect(plain(flatten(streamed.finish(SAMPLE))), `step ${step}`).toEqual(plain([...lex(SAMPLE)]));
    }
  });

  it('resolves a reference link whose definition arrives after the link was settled', () => {
    const md = new IncrementalMarkdown();
    const text = 'See [docs].\n\nMore text.\n\n[docs]: https://docs.test/\n\nEnd.';
    for (let end = 1; end < text.length; end += 1) md.update(text.slice(0, end));
    const first = flatten(md.finish(text))[0] as { tokens: { type: string }[] };
    expect(first.tokens.map((t) => t.type)).toContain('link');
  });

  it('keeps settled token objects and full groups identical across updates', () => {
    const md = new IncrementalMarkdown();
    const paragraphs = Array.from({ length: GROUP_SIZE * 2 + 3 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
    const before = md.update(paragraphs);
    const after = md.update(`${paragraphs} More words`);
    expect(after.groups[0]).toBe(before.groups[0]);
    expect(after.groups[1]).toBe(before.groups[1]);
    expect(after.groups[0]).toHaveLength(GROUP_SIZE);
    expect(after.tail.map((t) => t.raw).join('')).toBe(`Paragraph ${GROUP_SIZE * 2 + 2}. More words`);
  });

  it('lexes only the last block per update', () => {
    const md = new IncrementalMarkdown();
    let text = '';
    let tailChars = 0;
    for (let i = 0; i < 400; i += 1) {
      text += `Sentence number ${i} of a long answer.${i % 5 === 4 ? '\n\n' : ' '}`;
      const view = md.update(text);
      tailChars += view.tail.reduce((sum, t) => sum + t.raw.length, 0);
    }
    // Each update re-reads one paragraph (five sentences at most), never the whole answer.
    expect(tailChars / 400).toBeLessThan(250);
    expect(text.length).toBeGreaterThan(15_000);
  });

  it('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown();
    md.update('First answer.\n\nSecond block');
    expect(plain(flatten(md.update('Different')))).toEqual(plain([...lex('Different')]));
  });

  it('shows what lies past the limit as plain text in settled pieces', () => {
    const md = new IncrementalMarkdown();
    const line = 'A line of **text** that repeats.\n';
    const long = line.repeat(Math.ceil((MARKDOWN_LIMIT + 20_000) / line.length));
    const first = md.update(long);
    const second = md.update(`${long}more`);
    expect(second.overflow.join('')).toBe(
      `${long}more`.slice(flatten(second).reduce((n, t) => n + t.raw.length, 0)),
    );
    expect(second.overflow.length).toBeGreaterThan(3);
    expect(second.overflow[0]).toBe(first.overflow[0]);
    expect(second.overflow.every((piece) => piece.length <= 4096)).toBe(true);
    expect(second.overflow.at(-1)!.endsWith('more')).toBe(true);
  });
});
