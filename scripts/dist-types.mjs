// Finishes dist/types after tsc.
//
// 1. The hand-written declarations (types/: the frameworks and the classic script; tsc does not
//    copy .d.ts) go to dist/types/types, where their relative imports of src/ still resolve.
//
// 2. The CommonJS entries need CommonJS declarations (.d.cts), or TypeScript under
// node16/nodenext treats `require('agent-chat/server')` as ESM. The declarations of
// each entry and what it imports are copied with .cts extensions and .cjs import paths.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = 'dist/types';
cpSync('types', join(root, 'types'), { recursive: true });

const pending = [
  'server/index.d.ts',
  'server/node.d.ts',
  'src/dom-free.d.ts',
  ...['react', 'preact', 'vue', 'svelte'].map((f) => `types/frameworks/${f}.d.ts`),
];
const done = new Set();
while (pending.length) {
  const file = pending.pop();
  if (done.has(file)) continue;
  done.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  const rewritten = source.replace(
    /(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g,
    (_m, lead, quote, path) => {
      pending.push(relative(root, resolve(root, dirname(file), `${path}.d.ts`)));
      return `${lead}${quote}${path}.cjs${quote}`;
    },
  );
  const target = join(root, file.replace(/\.d\.ts$/, '.d.cts'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, rewritten);
}

// 3. Only what the package's entry points reach is published: tsc also declares the element's
//    Lit internals, which import `lit`, a package a consumer does not have. The public types end
//    at src/public-types.ts (test/dist/declarations.test.ts checks what remains).
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const entries = [];
const collect = (value) => {
  if (typeof value === 'string') {
    if (/\.d\.c?ts$/.test(value)) entries.push(value.replace(/^\.\//, ''));
  } else if (value && typeof value === 'object') Object.values(value).forEach(collect);
};
collect(pkg.exports);
collect(pkg.typesVersions);
const reached = new Set();
const queue = entries.map((entry) => resolve(entry));
while (queue.length) {
  const file = queue.pop();
  if (reached.has(file)) continue;
  reached.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(
    /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  )) {
    queue.push(resolve(dirname(file), spec.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts')));
  }
}
let pruned = 0;
for (const file of readdirSync(root, { recursive: true, withFileTypes: true })) {
  const path = resolve(file.parentPath, file.name);
  if (file.isFile() && !reached.has(path)) {
    rmSync(path);
    pruned += 1;
  }
}
if (process.env.VERBOSE)
  console.log(
    `dist-types: ${reached.size} declaration files published (${done.size} CommonJS), ${pruned} internal ones left out`,
  );
