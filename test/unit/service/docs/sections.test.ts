import { describe, expect, it } from 'vitest';
import { excerpt, splitLong } from '../../../../service/docs/sections.js';

const section = (text: string) => ({
  url: 'https://acme.test/api.html#limits',
  pageUrl: 'https://acme.test/api.html',
  title: 'API',
  headings: ['Limits'],
  text,
});

describe('a long section cut into parts', () => {
  it('cuts between paragraphs, each part within the limit', () => {
    const parts = splitLong(section(['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(60)].join('\n\n')), 130);
    expect(parts.map((p) => p.text)).toEqual([`${'a'.repeat(60)}\n\n${'b'.repeat(60)}`, 'c'.repeat(60)]);
    expect(parts.every((p) => p.url === 'https://acme.test/api.html#limits')).toBe(true);
  });

  it("repeats a long table's header in every part, and keeps a long code block's language", () => {
    const rows = Array.from({ length: 12 }, (_, i) => `| limit_${i} | ${i * 100} requests |`);
    const table = ['| Setting | Value |', '| --- | --- |', ...rows].join('\n');
    const parts = splitLong(section(table), 150).map((p) => p.text);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(150);
      expect(part.startsWith('| Setting | Value |\n| --- | --- |\n| limit_')).toBe(true);
    }
    expect(parts.join('\n').match(/limit_\d+/g)).toEqual(rows.map((_, i) => `limit_${i}`));

    const code = ['```sh', ...Array.from({ length: 20 }, (_, i) => `acme run --step ${i}`), '```'].join('\n');
    const codeParts = splitLong(section(code), 150).map((p) => p.text);
    expect(codeParts.length).toBeGreaterThan(2);
    for (const part of codeParts) expect(part).toMatch(/^```sh\nacme run[\s\S]*\n```$/);
  });
});

describe("a section's excerpt, as a list of results shows it", () => {
  it('is plain words: no fences, table rules, emphasis or link targets, cut at a word', () => {
    const text = [
      'Run **acme migrate** as in [the guide](https://acme.test/guide.html):',
      '```sh\nacme migrate --to 2\n```',
      '| Version | Until |\n| --- | :---: |\n| 2 | 2027 |',
      'then restart every instance of the service so each reads the new schema',
    ].join('\n\n');
    expect(excerpt(text)).toBe(
      'Run acme migrate as in the guide:\nacme migrate --to 2\n| Version | Until |\n| 2 | 2027 |\n' +
        'then restart every instance of the service so each reads the new schema',
    );
    expect(excerpt(text, 60)).toBe('Run acme migrate as in the guide:\nacme migrate --to 2\n|…');
  });
});
