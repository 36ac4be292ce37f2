// Builds dist/pgdata-template.tar.br: a PGlite data directory with the service's schema already
// migrated, for the pinned PGlite. The embedded store unpacks it on its first start instead of
// running initdb and the migrations in WebAssembly (see storage/pgdata-template.ts). Cached per
// PGlite version and migrations, since initdb takes seconds.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { constants, brotliCompressSync } from 'node:zlib';

const service = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const pglitePackage = JSON.parse(
  await readFile(join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8'),
);
const migrations = createHash('sha256')
  .update(await readFile(join(service, 'storage', 'migrations.ts')))
  .digest('hex')
  .slice(0, 12);
const cacheDir = join(service, '..', 'node_modules', '.cache', 'agent-chat-service');
const cached = join(cacheDir, `pgdata-${pglitePackage.version}-${migrations}.tar.br`);
const out = join(service, 'dist', 'pgdata-template.tar.br');

if (!existsSync(cached)) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { openSqlStores } = await import(join(service, 'dist', 'index.js'));
  const db = await PGlite.create();
  const client = (run) => async (sql, params) => {
    const result = await run(sql, params);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  await openSqlStores({
    query: client((sql, params) => db.query(sql, params)),
    transaction: (fn) => db.transaction((tx) => fn(client((sql, params) => tx.query(sql, params)))),
    close: async () => {},
  });
  // A clean shutdown checkpoint: the copy needs no recovery at its first start.
  await db.query('CHECKPOINT');
  const tar = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  await db.close();
  // Mostly zeros (a 16 MB WAL segment): 40 MB of tar become 1.6 MB. A 16 MB window finds the
  // repeats across files; quality 6 does it in a second or two (9 saves 2 %, 10 takes 40 s).
  const packed = brotliCompressSync(tar, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 6,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    },
  });
  await mkdir(cacheDir, { recursive: true });
  await writeFile(cached, packed);
}
await mkdir(dirname(out), { recursive: true });
await copyFile(cached, out);
