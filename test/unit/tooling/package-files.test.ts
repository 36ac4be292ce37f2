import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's install paths run in one clone: `npm run build:wordpress` leaves the plugin's zip
 * in dist/, and a later `npm pack` must not ship it to every npm install. npm itself reads the
 * package's real `files` field, over a dist/ that holds what a clone's dist/ may.
 */
const dir = mkdtempSync(join(tmpdir(), 'package-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function packed(): string[] {
  const { name, version, files } = JSON.parse(readFileSync('package.json', 'utf8'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, files }));
  mkdirSync(join(dir, 'dist/server'), { recursive: true });
  for (const file of ['agent-chat.js', 'agent-chat.js.map', 'agent-chat-wordpress.zip', 'server/node.js'])
    writeFileSync(join(dir, 'dist', file), '');
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return (JSON.parse(out)[0].files as { path: string }[]).map((f) => f.path).sort();
}

describe('the npm package', () => {
  it('holds the built widget and server helpers, without source maps or the WordPress plugin', () => {
    expect(packed()).toEqual(['dist/agent-chat.js', 'dist/server/node.js', 'package.json']);
  });
});
