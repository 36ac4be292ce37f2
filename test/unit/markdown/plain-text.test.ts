import { describe, expect, it } from 'vitest';
import { announcementText, plainText } from '../../../src/markdown/plain-text.js';

describe('plainText', () => {
  it('keeps the words and drops the markdown syntax', () => {
    expect(
      plainText('### Title\n\nSome **bold** and `code` with a [link](https://x.test).\n\n- one\n- two'),
    ).toBe('Title Some bold and code with a link. one two');
  });

  it('names code blocks and tables instead of reading them out', () => {
    expect(plainText('Before\n\n```js\nlet x;\n```\n\n| a |\n|---|\n| 1 |\n\nAfter')).toBe(
      'Before (code) (table) After',
    );
  });
});

describe('announcementText', () => {
  it('announces a short answer whole', () => {
    expect(announcementText('Use the **theme** attribute.')).toBe('Use the theme attribute.');
  });

  it('announces only the opening of a long answer, cut at a word', () => {
    const long = `Start here. ${'word '.repeat(5000)}`;
    const spoken = announcementText(long, 100);
    expect(spoken.length).toBeLessThan(160);
    expect(spoken).toMatch(/^Start here\. word word .*word… \(the answer continues in the conversation\)$/);
  });
});
