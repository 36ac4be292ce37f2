import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../contract/byte-size.js';
import { filePhrasesFor } from '../../../service/agents/file-phrases.js';

describe('formatBytes', () => {
  it('says bytes in the visitor\'s words, so a right-to-left line never starts with a Latin "B"', () => {
    expect(formatBytes(849, 'en')).toBe('849 B');
    expect(formatBytes(1700, 'en')).toBe('1.7 kB');
    expect(formatBytes(849, 'ar')).toBe('849 بايت');
    expect(formatBytes(849, 'he')).not.toMatch(/B/);
    expect(formatBytes(849, 'fr')).toBe('849\u202fo');
    expect(formatBytes(2_500_000, 'de')).toBe('2,5 MB');
  });

  it('is what the service says too: the demo agent\'s receipt of a file in Arabic has no Latin "B"', () => {
    const receipt = filePhrasesFor('ar').receipt([{ name: 'error.log', kind: 'text', size: 849 }]);
    // Arabic's own comma between the kind and the size, as in the rest of its sentences.
    expect(receipt).toContain('(نص، 849 بايت)');
    expect(receipt).not.toMatch(/\bB\b/);
    expect(filePhrasesFor('en').receipt([{ name: 'a.png', kind: 'image', size: 33 }])).toContain(
      '(image, 33 B)',
    );
  });
});
