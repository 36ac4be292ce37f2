// The classic script (`<script src>`, agent-chat.iife.js) with parts loaded on demand.
//
// An IIFE cannot split chunks, so the classic script is built as ES modules, code split like the
// ES build (every `import()` in src/ is a chunk), and this plugin then turns the entry back into
// a classic script:
// - the entry's code runs inside a function (nothing leaks onto the page's globals) and keeps
//   the script's own URL from its first statement (`document.currentScript`);
// - its `import("./x.js")` calls resolve against that URL, not the page's: the chunks are found
//   beside the script wherever it is served from (a CDN, /widget/{version}/, a copy of dist/);
// - what the chunks import from the entry (Lit, the widget's shared modules) is handed over in
//   one registry object instead of `export`, under a key unique to this build, so two builds on
//   one page never mix; the registry's getters keep the bindings live, as imports are;
// - each chunk reads that registry instead of importing the entry. Chunks stay ES modules and
//   import each other as usual.
// Anything the plugin does not recognise fails the build: a silent miss would ship a script
// that breaks only when a visitor reaches the part.
import { createHash } from 'node:crypto';

const REGISTRY = (key) => `globalThis[Symbol.for(${JSON.stringify(key)})]`;

/** `{ a as b, c }` as [left, right] pairs (right = left without `as`): [local, exported] in an export list, [exported, local] in an import list. */
function specifiers(list) {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [left, right] = part.split(/\s+as\s+/);
      return [left, right ?? left].map((name) => name.replace(/^["']|["']$/g, ''));
    });
}

/** @returns {import('vite').Plugin} */
export function classicChunks({ entryName }) {
  return {
    name: 'classic-chunks',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((chunk) => chunk.type === 'chunk' && chunk.isEntry);
      if (!entry || entry.fileName !== entryName) throw new Error(`classic-chunks: no entry ${entryName}`);
      const key = `agent-chat.classic:${createHash('sha256').update(entry.code).digest('hex').slice(0, 12)}`;
      let code = entry.code;
      if (/\bimport\.meta\b/.test(code)) throw new Error('classic-chunks: import.meta in the classic entry');
      if (/^\s*import\s*[{*"'\w]/m.test(code.split('\n')[0] ?? ''))
        throw new Error('classic-chunks: the classic entry imports a chunk statically');
      // The registry instead of the entry's exports.
      const exports = [...code.matchAll(/export\s*\{([^}]*)\};?/g)];
      if (exports.length > 1) throw new Error('classic-chunks: more than one export list in the entry');
      const handed = exports.length ? specifiers(exports[0][1]) : [];
      if (exports.length) code = code.replace(exports[0][0], '');
      if (/(^|[;}\s])export\s/.test(code)) throw new Error('classic-chunks: an export left in the entry');
      const getters = handed
        .map(([local, name]) => `get ${JSON.stringify(name)}(){return ${local}}`)
        .join(',');
      // Dynamic imports beside the script.
      const base = '__agentChatBase';
      let dynamic = 0;
      code = code.replace(/\bimport\((["'`])\.\/([\w.-]+\.js)\1\)/g, (_m, _q, file) => {
        dynamic += 1;
        return `import(new URL(${JSON.stringify(`./${file}`)},${base}).href)`;
      });
      if (/\bimport\(\s*["'`]/.test(code))
        throw new Error('classic-chunks: a dynamic import it could not place');
      entry.code =
        `(function(){var ${base}=document.currentScript&&document.currentScript.src||location.href;` +
        `${handed.length ? `${REGISTRY(key)}={${getters}};` : ''}${code}\n})();\n`;
      // Each chunk reads the registry instead of importing the entry.
      const fromEntry = new RegExp(
        `import\\s*\\{([^}]*)\\}\\s*from\\s*["']\\./${entryName.replace(/\./g, '\\.')}["'];?`,
        'g',
      );
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || chunk === entry) continue;
        chunk.code = chunk.code.replace(fromEntry, (_m, list) => {
          const names = specifiers(list).map(([name, local]) => `${JSON.stringify(name)}:${local}`);
          return `const{${names.join(',')}}=${REGISTRY(key)};`;
        });
        if (chunk.code.includes(entryName))
          throw new Error(`classic-chunks: ${chunk.fileName} still refers to ${entryName}`);
      }
      if (dynamic === 0 && Object.values(bundle).some((c) => c.type === 'chunk' && c !== entry))
        throw new Error('classic-chunks: chunks, but no dynamic import in the entry');
    },
  };
}
