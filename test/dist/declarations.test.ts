import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The published declarations (dist/types, after scripts/dist-types.mjs) stand alone: they import
 * each other and, from the framework and Node entries only, the optional peers a consumer of
 * that entry has. Never `lit` or another package the consumer did not install. The consumer
 * fixtures (npm run test:consumers) type-check them with skipLibCheck off; this is the fast net.
 */
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const root = 'dist/types';
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.d\.c?ts$/.test(f))
  .map((f) => join(root, f));

/** Import specifiers of a declaration file (`from '…'`, `import '…'`, `import('…')`), comments aside. */
function specifiers(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

/** A bare specifier's package: `svelte/elements` → svelte; `node:http` → @types/node. */
function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return '@types/node';
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return name === 'react' ? '@types/react' : name;
}

describe('published declarations', () => {
  it('are only those the entry points reach, the element class not among them', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => f.includes('/components/'))).toEqual([]);
  });

  it('import only each other, and optional peers from the framework and Node entries', () => {
    const peers = new Set(Object.keys(pkg.peerDependencies ?? {}));
    for (const name of peers)
      expect(pkg.peerDependenciesMeta[name]?.optional, `${name} is an optional peer`).toBe(true);
    const outside: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(file)) {
        if (specifier.startsWith('.')) {
          const target = resolve(
            dirname(file),
            specifier.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts'),
          );
          expect(existsSync(target), `${file} imports ${specifier}, which is not published`).toBe(true);
        } else if (!peers.has(packageOf(specifier))) {
          outside.push(`${relative(root, file)} → ${specifier}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  it('keep Node and framework types out of the element entry', () => {
    const reached = new Set<string>();
    const queue = [resolve(pkg.exports['.'].import.types)];
    for (let file = queue.pop(); file; file = queue.pop()) {
      if (reached.has(file)) continue;
      reached.add(file);
      for (const specifier of specifiers(file)) {
        expect(specifier.startsWith('.'), `${relative(root, file)} imports ${specifier}`).toBe(true);
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
      }
    }
    expect(reached.size).toBeGreaterThan(5);
  });
});
