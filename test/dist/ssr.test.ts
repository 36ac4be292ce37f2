import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** A fresh Node process: no DOM, no test-runner globals, exactly what an SSR server has. */
function runNode(source: string, type: 'module' | 'commonjs') {
  const args =
    type === 'module' ? ['--input-type=module', '-e', source] : ['--input-type=commonjs', '-e', source];
  return spawnSync(process.execPath, args, { encoding: 'utf8', cwd: process.cwd() });
}

const CHECK_NO_DOM = `
  if (typeof globalThis.customElements !== 'undefined' || typeof globalThis.HTMLElement !== 'undefined') throw new Error('a DOM global appeared');
`;

describe('importing the package where there is no DOM', () => {
  it('the ES entry exports its DOM-free API and registers nothing', () => {
    const run = runNode(
      `
      const pkg = await import('./dist/agent-chat.js');
      ${CHECK_NO_DOM}
      await new Promise((r) => setTimeout(r, 50));
      console.log(JSON.stringify({ names: Object.keys(pkg).sort(), version: pkg.VERSION, manager: typeof pkg.TokenManager }));
    `,
      'module',
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.names).toEqual(
      expect.arrayContaining(['TokenManager', 'createApiClient', 'AgentChatError', 'VERSION']),
    );
    expect(out.manager).toBe('function');
  });

  it('require() of the CommonJS entries works too', () => {
    const run = runNode(
      `
      const pkg = require('./dist/agent-chat.cjs');
      const server = require('./dist/server/index.cjs');
      const node = require('./dist/server/node.cjs');
      ${CHECK_NO_DOM}
      console.log(JSON.stringify([typeof pkg.TokenManager, typeof server.createSessionHandler, typeof server.ownerKey, typeof node.toNodeHandler, typeof node.createSessionHandler]));
    `,
      'commonjs',
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(['function', 'function', 'function', 'function', 'function']);
  });

  it('agent-chat/server loads no Node built-in (it runs in Workers without nodejs_compat)', async () => {
    const { readFileSync } = await import('node:fs');
    for (const file of ['dist/server/index.js', 'dist/server/index.cjs']) {
      expect(readFileSync(file, 'utf8')).not.toMatch(
        /\bnode:|require\(["'](?:http|stream|crypto|buffer)["']\)|from ["'](?:http|stream|crypto)["']/,
      );
    }
  });
});
