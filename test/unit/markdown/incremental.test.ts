import SimpleMarkdown from '@khanacademy/simple-markdown';
import { describe, expect, it, vi } from 'vitest';
import { GROUP_SIZE, IncrementalMarkdown, type MarkdownView } from '../../../src/markdown/incremental.js';
import { chunkStarts, parseBlocks } from '../../../src/markdown/parse.js';

const SAMPLE = `# Title

A paragraph with **bold**, \`code\` and a [link](https://x.test).

1. First step

   Its continuation paragraph.

2. Second step
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

Final words.`;

const flatten = (view: MarkdownView) => [...view.groups.flat(), ...view.tail];

/** The same cuts, parsed in one go: what streaming must agree with at every moment. */
function batchParse(text: string) {
  const cuts = [0, ...chunkStarts(text), text.length];
  return cuts.slice(1).flatMap((end, i) => parseBlocks(text.slice(cuts[i], end)));
}

describe('chunkStarts', () => {
  it('cuts at blank lines before a new top-level block', () => {
    expect(chunkStarts('one\n\ntwo\n\nthree\n')).toEqual([5, 10]);
  });

  it('never cuts inside a code fence, however many blank lines it holds', () => {
    const text = '```\na\n\n\nb\n```\n\nafter\n';
    expect(chunkStarts(text)).toEqual([text.indexOf('after')]);
  });

  it('keeps list items, indented continuations and quotes with the block before them', () => {
    expect(chunkStarts('- a\n\n- b\n\n    code\n\n> q\n\n> r\n')).toEqual([]);
  });

  it('does not judge the last line until it is complete', () => {
    expect(chunkStarts('one\n\ntwo')).toEqual([]);
  });
});

describe('IncrementalMarkdown', () => {
  it('cuts the sample where a whole-document parse would agree', () => {
    expect(chunkStarts(SAMPLE).length).toBeGreaterThanOrEqual(4);
    expect(batchParse(SAMPLE)).toEqual(parseBlocks(SAMPLE));
  });

  it('agrees with the batch parse at every prefix of a streamed answer', () => {
    const md = new IncrementalMarkdown();
    for (let end = 1; end <= SAMPLE.length; end += 1) {
      const prefix = SAMPLE.slice(0, end);
      expect(flatten(md.update(prefix)), `at ${end}`).toEqual(batchParse(prefix));
    }
  });

  it('finishes with exactly what was streamed, so the last render never jumps', () => {
    const streamed = new IncrementalMarkdown();
    for (let end = 1; end <= SAMPLE.length; end += 7) streamed.update(SAMPLE.slice(0, end));
    const finished = flatten(streamed.finish(SAMPLE));
    expect(finished).toEqual(flatten(new IncrementalMarkdown().finish(SAMPLE)));
    expect(finished).toEqual(parseBlocks(SAMPLE));
  });

  it('keeps settled node objects and full groups identical across updates', () => {
    const md = new IncrementalMarkdown();
    const paragraphs = Array.from({ length: GROUP_SIZE * 2 + 3 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
    const before = md.update(paragraphs);
    const after = md.update(`${paragraphs} More words`);
    expect(after.groups[0]).toBe(before.groups[0]);
    expect(after.groups[1]).toBe(before.groups[1]);
    expect(after.groups[0]).toHaveLength(GROUP_SIZE);
    const tailText = JSON.stringify(after.tail).match(/"content":"[^"]*"/g)!.map((c) => c.slice(11, -1)).join('');
    // The last cut is judged once the line after it is complete: two paragraphs stay open.
    expect(tailText).toBe('Paragraph 129.Paragraph 130. More words');
  });

  it('parses only the last chunk per update', () => {
    const md = new IncrementalMarkdown();
    const spy = vi.spyOn(SimpleMarkdown, 'defaultBlockParse');
    let text = '';
    let fullReparse = 0;
    try {
      for (let i = 0; i < 200; i += 1) {
        text += `Sentence number ${i} of a long answer.${i % 5 === 4 ? '\n\n' : ' '}`;
        md.update(text);
        fullReparse += text.length;
      }
      const parsed = spy.mock.calls.reduce((sum, [source]) => sum + source.length, 0);
      // Each update reads the open chunk: at most the last two paragraphs (a cut is judged
      // once the line after it is complete), never the whole answer.
      expect(parsed / 200).toBeLessThan(400);
      expect(parsed).toBeLessThan(fullReparse / 10);
    } finally {
      spy.mockRestore();
    }
  });

  it('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown();
    md.update('First answer.\n\nSecond block');
    expect(flatten(md.update('Different'))).toEqual(parseBlocks('Different'));
  });
});
