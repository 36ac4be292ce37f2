import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOKENS, TOKEN_DOCS } from '../../../src/styles/token-table.js';

/** What the manifest (via the root's JSDoc) and docs/reference.md must say, derived from the one table. */
const expectedJsDoc = TOKENS.map(([name, light]) => ` * @cssprop [${name}=${light}] - ${TOKEN_DOCS[name]}.`);
const expectedReadme = TOKENS.map(
  ([name, light, dark]) =>
    `| \`${name}\` | \`${light}\` | ${dark ? `\`${dark}\`` : 'same'} | ${TOKEN_DOCS[name]} |`,
);

describe('the token table', () => {
  it('documents every token', () => {
    expect(Object.keys(TOKEN_DOCS).sort()).toEqual(TOKENS.map(([name]) => name).sort());
  });

  it('feeds the manifest: the root lists exactly these @cssprop lines, in order', () => {
    const source = readFileSync('src/components/agent-chat/agent-chat.ts', 'utf8');
    const lines = source.split('\n').filter((line) => line.startsWith(' * @cssprop '));
    expect(lines.join('\n'), `paste into agent-chat.ts:\n${expectedJsDoc.join('\n')}`).toBe(
      expectedJsDoc.join('\n'),
    );
  });

  it('feeds the reference table', () => {
    const readme = readFileSync('docs/reference.md', 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `--agent-chat-'));
    expect(rows.join('\n'), `paste into docs/reference.md:\n${expectedReadme.join('\n')}`).toBe(
      expectedReadme.join('\n'),
    );
  });

  it("feeds the loader's stand-in: each fallback it writes is the table's default", () => {
    const loader = readFileSync('src/loader/loader.ts', 'utf8');
    const fallbacks = [...loader.matchAll(/var\((--agent-chat-[\w-]+), ([^;]+?)\)(?=;|\s*})/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(fallbacks.length).toBeGreaterThanOrEqual(6);
    const defaults = new Map(TOKENS.map(([name, light]) => [name, light]));
    const norm = (value: string) => value.replace(/^#fff$/, '#ffffff');
    for (const [name, value] of fallbacks) expect(norm(value), name).toBe(defaults.get(name));
  });

  it('is the only place token defaults are written: no style reads a token with a literal fallback', () => {
    const files = [
      'agent-chat/agent-chat',
      'message/message',
      'message-list/message-list',
      'composer/composer',
      'thread-list/thread-list',
    ];
    for (const file of files) {
      const css = readFileSync(`src/components/${file}.styles.ts`, 'utf8');
      expect(css, file).not.toMatch(/var\(--agent-chat-[\w-]+,\s*[^v\s]/);
    }
  });
});
