// Finishes dist/types after tsc.
//
// 1. The framework declarations (types/frameworks/*.d.ts, hand-written: tsc does not copy .d.ts)
//    go to dist/types/types/frameworks, where their relative imports of src/ still resolve.
//
// 2. The CommonJS entries need CommonJS declarations (.d.cts), or TypeScript under
// node16/nodenext treats `require('agent-chat/server')` as ESM. The declarations of
// each entry and what it imports are copied with .cts extensions and .cjs import paths.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = 'dist/types';
cpSync('types/frameworks', join(root, 'types/frameworks'), { recursive: true });

const pending = ['server/index.d.ts', 'server/node.d.ts', 'src/api.d.ts', ...['react', 'preact', 'vue', 'svelte'].map((f) => `types/frameworks/${f}.d.ts`)];
const done = new Set();
while (pending.length) {
  const file = pending.pop();
  if (done.has(file)) continue;
  done.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  const rewritten = source.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g, (_m, lead, quote, path) => {
    pending.push(relative(root, resolve(root, dirname(file), `${path}.d.ts`)));
    return `${lead}${quote}${path}.cjs${quote}`;
  });
  const target = join(root, file.replace(/\.d\.ts$/, '.d.cts'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, rewritten);
}
console.log(`dist-types: framework declarations copied; ${done.size} declaration files`);
