import { describe, expect, it } from 'vitest';
import { plainText } from '../../../src/markdown/plain-text.js';

describe('plainText', () => {
  it('keeps the words and drops the markdown syntax', () => {
    expect(plainText('### Title\n\nSome **bold** and `code` with a [link](https://x.test).\n\n- one\n- two')).toBe(
      'Title Some bold and code with a link. one two',
    );
  });

  it('names code blocks and tables instead of reading them out', () => {
    expect(plainText('Before\n\n```js\nlet x;\n```\n\n| a |\n|---|\n| 1 |\n\nAfter')).toBe('Before (code) (table) After');
  });
});
