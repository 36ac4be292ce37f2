import { describe, expect, it } from 'vitest';
import { defuseNesting, elementCount, lex, markdownEnd, MARKDOWN_LIMIT } from '../../../src/markdown/parse.js';

const depth = (tokens: readonly { type: string; tokens?: unknown; items?: unknown }[], type: string): number =>
  Math.max(0, ...tokens.map((t) => (t.type === type ? 1 : 0) + depth([...((t.tokens as []) ?? []), ...((t.items as []) ?? [])], type)));

describe('defuseNesting', () => {
  it('leaves ordinary markdown exactly as it is', () => {
    const text = '> quote\n> > nested\n\n- a\n  - b\n    - c\n\n```yaml\nkey:\n  - value\n```\n';
    expect(defuseNesting(text)).toBe(text);
  });

  it('keeps the length, so token spans still match the answer', () => {
    const text = `${'>'.repeat(200)} deep\n${Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n')}`;
    expect(defuseNesting(text)).toHaveLength(text.length);
  });

  it('holds quotes at 8 levels and lists at the 32nd column', () => {
    expect(depth(lex(`${'>'.repeat(200)} deep`), 'blockquote')).toBe(8);
    const list = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    expect(depth(lex(list), 'list')).toBe(17);
    expect(JSON.stringify(lex(list))).toContain('item 199');
  });
});

describe('elementCount', () => {
  it('counts the elements a block renders to', () => {
    expect(elementCount(lex('Plain words only.')[0])).toBe(1);
    expect(elementCount(lex('Some **bold** and `code` and [a](https://x.test).')[0])).toBe(4);
    expect(elementCount(lex('| a | b |\n|---|---|\n| 1 | 2 |')[0])).toBe(6);
  });
});

describe('markdownEnd', () => {
  it('ends the markdown at a line start near the limit', () => {
    const text = 'a line of text\n'.repeat(Math.ceil((MARKDOWN_LIMIT * 1.5) / 15));
    const end = markdownEnd(text);
    expect(end).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(end).toBeGreaterThan(MARKDOWN_LIMIT - 16);
    expect(text[end - 1]).toBe('\n');
    expect(markdownEnd('short')).toBe(5);
  });
});
