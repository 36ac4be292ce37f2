import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from '../../../src/markdown/incremental.js';
import { renderView } from '../../helpers/markdown.js';

const SIZE = 64 * 1024;
const repeat = (unit: string, size = SIZE) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const nested = (line: (depth: number) => string, depth: number) => Array.from({ length: depth }, (_, i) => line(i)).join('\n');

/** Inputs that make backtracking or recursive parsers blow up, each about 64 KB. */
const HOSTILE: Record<string, string> = {
  'a run of backticks': repeat('`'),
  'alternating backtick runs': repeat('` `` '),
  'backticks between words': repeat('a`b ``c '),
  'a run of asterisks': repeat('*'),
  'a run of underscores': repeat('_'),
  'asterisks between words': repeat('*a **b '),
  'underscores between words': repeat('_a __b '),
  'nested brackets': `${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}`,
  'unclosed brackets': repeat('[['),
  'half links repeated': repeat('[a]('),
  'half links with spaces': repeat('[a]( '),
  'half images repeated': repeat('!['),
  'angle brackets': repeat('<a '),
  'a 200-level nested list': nested((i) => `${'  '.repeat(i)}- item ${i}`, 200),
  '200-level nested lists, repeated': repeat(nested((i) => `${'  '.repeat(i)}- item ${i}`, 200) + '\n\n'),
  'a 200-level nested quote': `${'>'.repeat(200)} quoted\n${'> '.repeat(200)}again\n`.padEnd(SIZE * 0.7, 'x'),
  '200-level nested quotes, repeated': repeat(`${'>'.repeat(200)} quoted\n\n`),
  'a 200-level staircase of quotes': repeat(nested((i) => `${'> '.repeat(i + 1)}line ${i}`, 200) + '\n\n'),
  'a 2,000-row table': `| a | b | c |\n|---|---|---|\n${nested((i) => `| row ${i} | some words | more |`, 2000)}`,
  'a 2,000-row table with marks in every cell': `| a | b | c |\n|---|---|---|\n${nested((i) => `| ${i} | **bold** \`code\` | [link](https://x.test/${i}) |`, 2000)}`.slice(0, SIZE),
  'e-mail-like runs': repeat('a@b.'),
  'entities': repeat('&#'),
  'backslashes': repeat('\\'),
  // Openers without closers, one paragraph long: each delimiter run once looked for its closer
  // through the whole rest of the paragraph.
  'double underscores before words': repeat('__a'),
  'double asterisks before words': repeat('**a'),
  'asterisks before words': repeat('*a'),
  'double tildes before words': repeat('~~a'),
  'underscore-wrapped words': repeat('_a_'),
  'bracketed words': repeat('[a]'),
  'backticks before words': repeat('`a'),
  'openers with one closer at the very end': `${repeat('**a ', SIZE - 3)}a**`,
};

/**
 * The least of a few timed runs after a warm-up. Other processes on a shared CI machine only
 * ever add time, so the minimum is the closest measure of the work itself; a super-linear
 * parser (seconds on these inputs) fails it on every run.
 */
function leastMs(run: () => void, runs = 5): number {
  run();
  return Math.min(
    ...Array.from({ length: runs }, () => {
      const start = performance.now();
      run();
      return performance.now() - start;
    }),
  );
}

/**
 * The longest single update (parse + render) while `text` streams in, in `steps` deltas. Each
 * step is timed in `runs` streamed runs and its least time kept (as leastMs does), so a pause
 * from another process lands on one run of a step, not on the figure.
 */
function longestStreamingMs(text: string, container: HTMLElement, steps = 40, runs = 3): number {
  const least = Array.from({ length: steps }, () => Infinity);
  for (let run = 0; run < runs; run += 1) {
    const markdown = new IncrementalMarkdown();
    renderView({ groups: [], tail: [], overflow: [] }, container);
    for (let i = 1; i <= steps; i += 1) {
      const end = Math.round((text.length * i) / steps);
      const start = performance.now();
      renderView(i === steps ? markdown.finish(text) : markdown.update(text.slice(0, end)), container);
      least[i - 1] = Math.min(least[i - 1], performance.now() - start);
    }
  }
  return Math.max(...least);
}

describe('markdown on hostile input', () => {
  const container = document.createElement('div');
  document.body.append(container);

  it.each(Object.entries(HOSTILE))('parses and renders %s (64 KB) in under 50 ms', (_, text) => {
    expect(text.length).toBeGreaterThan(SIZE * 0.6);
    const ms = leastMs(() => {
      renderView({ groups: [], tail: [], overflow: [] }, container);
      renderView(new IncrementalMarkdown().finish(text), container);
    });
    console.info(`${_}: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(50);
    // Nothing is lost: every character of the answer is still on the page, formatted or not.
    const shown = container.textContent!.replace(/\s/g, '').length;
    expect(shown).toBeGreaterThan(text.replace(/[\s>`*_~|\\#-]/g, '').length * 0.5);
  });

  it.each(Object.entries(HOSTILE))('streams %s (64 KB) with no update over 50 ms', (_, text) => {
    const ms = longestStreamingMs(text, container);
    console.info(`${_}, streaming: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(50);
  });
});
