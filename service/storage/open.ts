import { DataDirLockedError } from './data-dir-lock.js';
import { pgliteClient } from './pglite.js';
import { postgresClient } from './postgres.js';
import type { SqlClient } from './sql-client.js';
import { openSqlStores } from './sql/index.js';
import type { EndedOrphan, Stores } from './types.js';

/**
 * Opens the service's database: PostgreSQL when `databaseUrl` is set, else the embedded
 * PGlite store in `dataDir` (in memory when that is absent too). The drivers are imported
 * here, on demand, so the service core stays free of them (it also runs in a browser).
 */
export async function openStorage(options: {
  databaseUrl?: string;
  dataDir?: string;
  /** The answers a crash of the last process left generating, ended at the open (for their log lines). */
  ended?: (answers: EndedOrphan[]) => void;
  /** The schema is a newer release's, which this build still runs on (decision 732). */
  newerSchema?: (database: number, build: number) => void;
}): Promise<Stores> {
  const { newerSchema } = options;
  if (options.databaseUrl) return openSqlStores(await postgresClient(options.databaseUrl), { newerSchema });
  if (!options.dataDir) return openSqlStores(await pgliteClient(), { newerSchema });
  return (await openDataDir(options.dataDir, options.ended, newerSchema)).stores;
}

/**
 * The embedded store in `dataDir` as every start opens it, with its client (the move to
 * PostgreSQL reads its tables whole). The directory is this process's alone (its lock):
 * whatever the last process left generating was cut off with it (a crash, kill -9), and so
 * were the concurrent-answer slots it held, which would otherwise refuse their owners until
 * the lease reaper came by. `ended` hears the answers ended so (for their log lines).
 */
export async function openDataDir(
  dataDir: string,
  ended?: (answers: EndedOrphan[]) => void,
  newerSchema?: (database: number, build: number) => void,
): Promise<{ stores: Stores; client: SqlClient }> {
  const client = await pgliteClient(dataDir);
  const stores = await openSqlStores(client, { newerSchema });
  const cut = await stores.ledger.endStale(Number.MAX_SAFE_INTEGER, Date.now());
  ended?.(cut);
  await stores.ledger.purgeAnswerSlots(Number.MAX_SAFE_INTEGER);
  return { stores, client };
}

/**
 * A command's work on the stores `open` gives, closed after it. The embedded store takes one
 * process: when a running service holds its directory, `locked` answers with its message
 * (each command adds what to do instead) and nothing is opened.
 */
export async function withStores<T>(
  open: () => Promise<Stores>,
  locked: (message: string) => T,
  work: (storage: Stores) => Promise<T>,
): Promise<T> {
  let storage: Stores;
  try {
    storage = await open();
  } catch (error) {
    if (error instanceof DataDirLockedError) return locked(error.forCommand);
    throw error;
  }
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}
