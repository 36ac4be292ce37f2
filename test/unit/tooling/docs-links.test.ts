import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The Markdown a site owner follows from the README: a link to a missing file or heading is a dead end. */
const mdIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(dir, f));
const files = [
  'README.md',
  'CHANGELOG.md',
  'wordpress/README.md',
  ...mdIn('docs'),
  ...mdIn('docs/decisions'),
];

/** Text outside fenced code blocks and inline code, where a `](…)` is an example, not a link. */
function prose(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered; plus explicit ids. */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split('#');
    const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
    else if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md')) {
      if (!anchors(resolved).has(anchor)) broken.push(`${file}: ${target} (no such anchor)`);
    }
  }
  return broken;
}

describe('the docs link only to what exists', () => {
  it('every relative link and #anchor in the README and docs/ resolves', () => {
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});
