import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
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

describe("the README's figures", () => {
  const kb = (file: string) => gzipSync(readFileSync(`dist/${file}`), { level: 9 }).length / 1000;
  const part = readdirSync('dist').find((f) => f.startsWith('agent-chat.part.markdown-engine-'))!;

  it("are the built files' sizes (gzip, within half a KB): the first script, the widget, its Markdown engine", () => {
    const readme = readFileSync('README.md', 'utf8');
    const stated =
      /a ([\d.]+) KB first script draws the launcher; the widget \(([\d.]+) KB gzip\)[\s\S]*?Markdown engine \(([\d.]+) KB\)/.exec(
        readme,
      );
    expect(stated, 'the README states the three sizes').not.toBeNull();
    const [loader, widget, engine] = stated!.slice(1).map(Number);
    expect(Math.abs(loader - kb('agent-chat.loader.iife.js'))).toBeLessThan(0.5);
    expect(Math.abs(widget - kb('agent-chat.iife.js'))).toBeLessThan(0.5);
    expect(Math.abs(engine - kb(part))).toBeLessThan(0.5);
  });
});
