import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const size = (...args: string[]) =>
  spawnSync(process.execPath, ['scripts/size.mjs', ...args], { encoding: 'utf8' });

describe('npm run size', () => {
  it('passes the real bundles and prints their gzip sizes', () => {
    const run = size();
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/IIFE[\s\S]*KB/);
    expect(run.stdout).toMatch(/markdown engine \(marked's Lexer\): [\d.]+ KB gzip/);
  });

  it('fails when a bundle is over its budget', () => {
    const run = size('--max-iife=1000');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('OVER BUDGET');
  });
});
