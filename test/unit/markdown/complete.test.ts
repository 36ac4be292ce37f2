import { describe, expect, it } from 'vitest';
import { completeTail } from '../../../src/markdown/complete.js';

describe('completeTail', () => {
  it.each([
    ['Some **bold text', 'Some **bold text**'],
    ['Some *emphasis', 'Some *emphasis*'],
    ['Some __strong', 'Some __strong__'],
    ['Some ~~gone', 'Some ~~gone~~'],
    ['Some ***both', 'Some ***both***'],
    ['Some **bold*', 'Some **bold**'],
    ['Use `npm ci', 'Use `npm ci`'],
    ['Use ``a ` b', 'Use ``a ` b``'],
    ['Read [the docs](https://docs.te', 'Read the docs'],
    ['Read [the docs](', 'Read the docs'],
    ['Read [the do', 'Read the do'],
    ['Nested **bold and *em', 'Nested **bold and *em***'],
    ['- item one\n- item **two', '- item one\n- item **two**'],
    ['| a | b |', '| a | b |\n|---|---|'],
    ['| a | b |\n|--', '| a | b |\n|---|---|'],
  ])('closes %j', (input, expected) => {
    expect(completeTail(input)).toBe(expected);
  });

  it.each([
    ['an opener with nothing after it yet', 'Hello **', 'Hello'],
    ['a lone backtick', 'Run `', 'Run'],
    ['an opener before a trailing space', 'Some ** ', 'Some'],
  ])('drops %s', (_, input, expected) => {
    expect(completeTail(input)).toBe(expected);
  });

  it.each([
    'A finished **bold** and `code` and [link](https://x.test).',
    'snake_case_name stays as it is',
    '2 * 3 * 4 = 24',
    '* a list item',
    'Escaped \\*star and \\`tick',
    'Text with `code containing ** stars`',
    'Prose with a [1] citation and more',
  ])('leaves finished text alone: %j', (input) => {
    expect(completeTail(input)).toBe(input);
  });

  it('closes only the last paragraph', () => {
    expect(completeTail('First **open\n\nSecond *open')).toBe('First **open\n\nSecond *open*');
  });
});

describe('completeTail in code', () => {
  it('leaves an open fence as it is: its content is code', () => {
    expect(completeTail('Example:\n```js\nconst a = `b')).toBe('Example:\n```js\nconst a = `b');
    expect(completeTail('- step\n  ```sh\n  echo **')).toBe('- step\n  ```sh\n  echo **');
  });

  it('closes syntax after a fence that is closed', () => {
    expect(completeTail('```\ncode\n```\nThen **bold')).toBe('```\ncode\n```\nThen **bold**');
  });
});

describe('completeTail on hostile text', () => {
  it('leaves very long paragraphs and deep emphasis alone, in linear time', () => {
    const long = `${'word '.repeat(1000)}**open`;
    expect(completeTail(long)).toBe(long);
    const deep = '*a **b _c __d '.repeat(200);
    expect(completeTail(deep.slice(0, 3000))).toBe(deep.slice(0, 3000));
    const links = '[a]('.repeat(900);
    expect(completeTail(links)).toBe('a');
  });
});
