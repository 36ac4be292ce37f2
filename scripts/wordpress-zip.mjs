// Writes dist/agent-chat-wordpress.zip: the plugin in wordpress/agent-chat/ with the built widget
// (the IIFE, the parts and locale files it loads from beside itself, sri.json) in its assets/ folder.
// The zip is made here, with zlib and a few lines of the format (no dependency, no `zip` binary),
// and is byte-for-byte the same for the same inputs. Run after `npm run build`.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateRawSync } from 'node:zlib';

const PLUGIN = 'wordpress/agent-chat';
const OUT = 'dist/agent-chat-wordpress.zip';

const fail = (message) => {
  console.error(`[agent-chat] ${message}`);
  process.exit(1);
};

if (!existsSync('dist/agent-chat.iife.js') || !existsSync('dist/sri.json'))
  fail('dist/agent-chat.iife.js or dist/sri.json is missing: run npm run build first.');

const iife = readFileSync('dist/agent-chat.iife.js');
const sri = JSON.parse(readFileSync('dist/sri.json', 'utf8'));
const hash = `sha384-${createHash('sha384').update(iife).digest('base64')}`;
if (sri['agent-chat.iife.js'] !== hash)
  fail('dist/sri.json does not match dist/agent-chat.iife.js: run npm run build again.');

// The plugin says its version in three places; each must be the package's.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const [file, pattern] of [
  ['agent-chat.php', /^ \* Version:\s+(\S+)$/m],
  ['agent-chat.php', /^const AGENT_CHAT_VERSION = '([^']+)';$/m],
  ['block/editor.asset.php', /'version' => '([^']+)'/],
  ['readme.txt', /^Stable tag: (\S+)$/m],
]) {
  const found = pattern.exec(readFileSync(join(PLUGIN, file), 'utf8'))?.[1];
  if (found !== version) fail(`${PLUGIN}/${file} says version ${found}, package.json ${version}.`);
}

/** [path in the zip, contents]: the plugin's files, then the widget's. */
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else files.push([`agent-chat/${relative(PLUGIN, path).split('\\').join('/')}`, readFileSync(path)]);
  }
};
walk(PLUGIN);
files.push(['agent-chat/LICENSE', readFileSync('LICENSE')]);
files.push(['agent-chat/assets/agent-chat.iife.js', iife]);
// What the script fetches from beside itself when a visitor needs it: its parts (the markdown
// engine, the Conversations list, the attachment view) and the languages.
for (const name of readdirSync('dist').sort())
  if (/^agent-chat\.(part\.[\w.-]+|locale\.\w+)\.js$/.test(name))
    files.push([`agent-chat/assets/${name}`, readFileSync(join('dist', name))]);
files.push(['agent-chat/assets/sri.json', readFileSync('dist/sri.json')]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** Every folder an entry sits in, once, before its files (unzip tools create them from these). */
const folders = [
  ...new Set(
    files.flatMap(([path]) =>
      path
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`),
    ),
  ),
];
const entries = [...folders.map((path) => [path, null]), ...files].sort(([a], [b]) => (a < b ? -1 : 1));

// A fixed time (1 January 1980, the format's first day), so the same inputs give the same zip.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const locals = [];
const centrals = [];
let offset = 0;
for (const [path, data] of entries) {
  const name = Buffer.from(path, 'utf8');
  const folder = data === null;
  const stored = folder ? Buffer.alloc(0) : deflateRawSync(data, { level: 9 });
  const crc = folder ? 0 : crc32(data);
  const size = folder ? 0 : data.length;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate, folders)
  local.writeUInt16LE(0x0800, 6); // names are UTF-8
  local.writeUInt16LE(folder ? 0 : 8, 8); // stored or deflated
  local.writeUInt16LE(DOS_TIME, 10);
  local.writeUInt16LE(DOS_DATE, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(stored.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (so the modes below are read)
  local.copy(central, 6, 4, 30); // the same fields, from "version needed" to "extra length"
  central.writeUInt16LE(0, 32); // comment length
  central.writeUInt16LE(0, 34); // disk
  central.writeUInt16LE(0, 36); // internal attributes
  central.writeUInt32LE((((folder ? 0o40755 : 0o100644) << 16) | (folder ? 0x10 : 0)) >>> 0, 38);
  central.writeUInt32LE(offset, 42);
  locals.push(local, name, stored);
  centrals.push(central, name);
  offset += local.length + name.length + stored.length;
}
const directory = Buffer.concat(centrals);
const end = Buffer.alloc(22);
end.writeUInt32LE(0x06054b50, 0);
end.writeUInt16LE(entries.length, 8);
end.writeUInt16LE(entries.length, 10);
end.writeUInt32LE(directory.length, 12);
end.writeUInt32LE(offset, 16);
const zip = Buffer.concat([...locals, directory, end]);
writeFileSync(OUT, zip);
console.log(
  `✓ ${OUT}: ${files.length} files, ${(zip.length / 1000).toFixed(1)} KB (WordPress plugin ${version}, widget ${hash.slice(0, 19)}…)`,
);
