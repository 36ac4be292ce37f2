// No class over 300 lines (decisions 303, 400): oxlint counts functions, not classes, so `npm run
// lint` runs this too. A class runs from the line that declares it to the closing brace at its
// indentation (the formatter puts it there), blank lines and comments included.
// Usage: node scripts/class-size.mjs [--max=LINES] [FOLDER...]   (default: src server service contract)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MAX_CLASS_LINES = 300;

const DECLARATION = /^(\s*)(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([\w$]+)/;

/** The classes of one file: name, first line (1-based) and length in lines. */
export function classSizes(text) {
  const lines = text.split('\n');
  const classes = [];
  lines.forEach((line, i) => {
    const match = DECLARATION.exec(line);
    if (!match || line.trimEnd().endsWith('}')) return;
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === `${match[1]}}`);
    if (end !== -1) classes.push({ name: match[2], line: i + 1, lines: end - i + 1 });
  });
  return classes;
}

function* sources(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') yield* sources(path);
    else if (entry.isFile() && /\.(m?ts|m?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const options = process.argv.slice(2);
  const max = Number(options.find((o) => o.startsWith('--max='))?.slice(6) ?? MAX_CLASS_LINES);
  const folders = options.filter((o) => !o.startsWith('--'));
  const over = [];
  for (const folder of folders.length ? folders : ['src', 'server', 'service', 'contract'])
    for (const file of sources(join(root, folder)))
      for (const found of classSizes(readFileSync(file, 'utf8')))
        if (found.lines > max)
          over.push(`${file.slice(root.length)}:${found.line}  ${found.name}: ${found.lines} lines`);
  if (over.length) {
    console.error(
      `Classes over ${max} lines (split one by role, docs/architecture.md):\n  ${over.join('\n  ')}`,
    );
    process.exit(1);
  }
}
