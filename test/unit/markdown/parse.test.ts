import { Lexer } from 'marked';
import { describe, expect, it, vi } from 'vitest';
import { IncrementalMarkdown } from '../../../src/markdown/incremental.js';
import { plainText } from '../../../src/markdown/plain-text.js';
import {
  defuseNesting,
  elementCount,
  lex,
  markdownEnd,
  MarkdownEnd,
  MARKDOWN_LIMIT,
  MARKUP_LIMIT,
} from '../../../src/markdown/parse.js';

const depth = (
  tokens: readonly { type: string; tokens?: unknown; items?: unknown }[],
  type: string,
): number =>
  Math.max(
    0,
    ...tokens.map(
      (t) =>
        (t.type === type ? 1 : 0) + depth([...((t.tokens as []) ?? []), ...((t.items as []) ?? [])], type),
    ),
  );

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

  it('holds quotes and lists opened on one line at 8 levels, the deeper markers kept as text', () => {
    for (const unit of ['- ', '* ', '+ ', '-\t', '1. ', '1) ', '> - ', '- > ', '2. > + ']) {
      const text = `${unit.repeat(2000)}a`;
      const tokens = lex(text);
      expect(depth(tokens, 'list') + depth(tokens, 'blockquote'), unit).toBe(8);
      expect(JSON.stringify(tokens), unit).toMatch(/\u00a0a|›a|› a/);
      expect(defuseNesting(text)).toHaveLength(text.length);
    }
    expect(lex('- - a\n  > - b')[0]).toMatchObject({ type: 'list' });
  });
});

describe('markdown that cannot be lexed', () => {
  it('never throws: 2,000 list markers on one line (4 KB) render, and so do 1,000 nested strong', () => {
    for (const text of [
      `${'- '.repeat(2000)}a`,
      `${'1. '.repeat(1400)}a`,
      `${'**'.repeat(1000)}a${'**'.repeat(1000)}`,
    ]) {
      expect(() => lex(text)).not.toThrow();
      expect(() => new IncrementalMarkdown().finish(text)).not.toThrow();
      expect(() => plainText(text)).not.toThrow();
      const view = new IncrementalMarkdown().finish(text);
      const shown = [...view.groups.flat(), ...view.tail].map((t) => t.raw).join('') + view.overflow.join('');
      // Every character is kept; inert markers only trade their space for a no-break one.
      expect(shown.replace(/\u00a0/g, ' ')).toBe(text);
    }
  });

  it('shows what the lexer throws on as the text it is, line breaks kept', () => {
    const spy = vi.spyOn(Lexer.prototype, 'lex').mockImplementation(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    try {
      const tokens = lex('**a**\n- b');
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ type: 'html', block: true, raw: '**a**\n- b' });
      expect(plainText('**a**\n- b')).toBe('**a** - b');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('elementCount', () => {
  it('counts the elements a block renders to', () => {
    expect(elementCount(lex('Plain words only.')[0])).toBe(1);
    // A paragraph, a strong, a code span and a link, which weighs three (LINK_COST).
    expect(elementCount(lex('Some **bold** and `code` and [a](https://x.test).')[0])).toBe(6);
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

  it('ends the markdown of text that is mostly syntax after MARKUP_LIMIT markup characters', () => {
    const text = '__a'.repeat(10_000);
    const end = markdownEnd(text);
    expect(text.slice(0, end).match(/_/g)!.length).toBe(MARKUP_LIMIT);
    // Streaming: the end stays where it is as the text grows.
    expect(markdownEnd(text + '__a'.repeat(100))).toBe(end);
    expect(markdownEnd(text.slice(0, end + 1))).toBe(end);
  });

  it('gives the same end for a growing text as for each whole text, counting only what was added', () => {
    // Syntax-heavy lines, then plain lines past the limits: the end is reached mid-stream.
    const text = `${'a **b** _c_ `d` [e](f)\n'.repeat(700)}${'plain words\n'.repeat(3000)}`;
    for (const step of [13, 4096]) {
      const growing = new MarkdownEnd();
      for (let length = 0; length <= text.length; length += step)
        expect(growing.of(text.slice(0, length))).toBe(markdownEnd(text.slice(0, length)));
    }
  });

  it('keeps a real answer whole: its markup is far below the limit', () => {
    const answer = 'Use **bold**, `code`, [links](https://x.test) and _emphasis_ as agents do.\n\n'.repeat(
      300,
    );
    expect(answer.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(markdownEnd(answer)).toBe(answer.length);
  });
});

describe('lex on dense emphasis', () => {
  it('still pairs emphasis near its opener in a paragraph with thousands of delimiter runs', () => {
    const text = `${'**a '.repeat(2000)}**bold** and _em_ a**`;
    type Node = { type: string; text: string; tokens?: Node[] };
    const marks: string[] = [];
    const walk = (nodes: Node[] = []) =>
      nodes.forEach(
        (t) => (
          t.type === 'strong' || t.type === 'em' ? marks.push(`${t.type}:${t.text}`) : undefined,
          walk(t.tokens)
        ),
      );
    walk(lex(text) as unknown as Node[]);
    expect(marks).toContain('strong:bold');
    expect(marks).toContain('em:em');
  });

  it('bounds the e-mail look-ahead at a 64-character local part and still links a real address', () => {
    const link = (
      lex('Write to help.desk@example.com today.')[0] as unknown as {
        tokens: { type: string; href?: string }[];
      }
    ).tokens.find((t) => t.type === 'link');
    expect(link?.href).toBe('mailto:help.desk@example.com');
  });
});
