// Subresource Integrity hashes of the browser files, for a pinned CDN <script integrity>.
// Printed, and written to dist/sri.json ({"agent-chat.iife.js": "sha384-…", …}).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dist = 'dist';
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'server' && entry.name !== 'types') walk(path);
    } else if (entry.name.endsWith('.js')) files.push(relative(dist, path).split('\\').join('/'));
  }
};
walk(dist);
files.sort();
const hashes = Object.fromEntries(
  files.map((file) => [
    file,
    `sha384-${createHash('sha384')
      .update(readFileSync(join(dist, file)))
      .digest('base64')}`,
  ]),
);
writeFileSync(join(dist, 'sri.json'), `${JSON.stringify(hashes, null, 2)}\n`);
for (const [file, hash] of Object.entries(hashes)) console.log(`${hash}  ${file}`);
