import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The prose a site owner reads: the README, docs/, and the element's own descriptions (the manifest is built from them). */
const files = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'src/components/agent-chat/agent-chat.ts',
  'src/public-types.ts',
];

describe('the docs name things one way', () => {
  it('the service\'s admin pages are "the console", never "the dashboard"', () => {
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/dashboard/i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
