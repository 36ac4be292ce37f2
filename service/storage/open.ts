import { pgliteClient } from './pglite.js';
import { postgresClient } from './postgres.js';
import { openSqlStores } from './sql/index.js';
import type { Stores } from './types.js';

/**
 * Opens the service's database: PostgreSQL when `databaseUrl` is set, else the embedded
 * PGlite store in `dataDir` (in memory when that is absent too). The drivers are imported
 * here, on demand, so the service core stays free of them (it also runs in a browser).
 */
export async function openStorage(options: { databaseUrl?: string; dataDir?: string }): Promise<Stores> {
  return openSqlStores(
    options.databaseUrl ? await postgresClient(options.databaseUrl) : await pgliteClient(options.dataDir),
  );
}
