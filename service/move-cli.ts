import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLockedError, LOCK_FILE } from './storage/data-dir-lock.js';
import { moveStore, TargetNotEmptyError, type MovedTable } from './storage/move.js';
import { openDataDir } from './storage/open.js';
import { postgresClient } from './storage/postgres.js';
import type { SqlClient } from './storage/sql-client.js';
import type { Stores } from './storage/types.js';

const USAGE =
  'usage: DATABASE_URL=postgres://… agent-chat-service move-to-postgres [--data DIR]  (the service stopped)';

/** Where the lines go: the table and the next step to stdout, what went wrong to stderr. */
export interface MoveOutput {
  print(line: string): void;
  error(line: string): void;
}

const consoleOutput: MoveOutput = {
  print: (line) => console.log(line),
  error: (line) => console.error(line),
};

/** How the command reaches the two stores; a test gives its own. */
export interface MoveEngines {
  /** The embedded store in a data directory, locked for this process, and its client. */
  open(dataDir: string): Promise<{ stores: Stores; client: SqlClient }>;
  /** The target's client. */
  connect(databaseUrl: string): Promise<SqlClient>;
}

const ENGINES: MoveEngines = { open: openDataDir, connect: postgresClient };

/** The database a URL names, without its user or password: what the lines may show. */
function where(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL at ${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * `agent-chat-service move-to-postgres`: the embedded store in `dataDir` copied whole into the
 * empty PostgreSQL database `databaseUrl` names (decisions 509, 510); the exit code (0, 1 with
 * the reason on stderr, 2 for a wrong call).
 */
export async function moveToPostgres(
  args: string[],
  store: { databaseUrl?: string; dataDir: string },
  out: MoveOutput = consoleOutput,
  engines: MoveEngines = ENGINES,
): Promise<number> {
  const fail = (message: string, code = 1) => {
    out.error(`agent-chat-service move-to-postgres: ${message}`);
    return code;
  };
  if (args.length) return fail(USAGE, 2);
  if (!store.databaseUrl)
    return fail(`DATABASE_URL must name the PostgreSQL database to copy into (an empty one).\n${USAGE}`, 2);
  if (!existsSync(join(store.dataDir, 'PG_VERSION')))
    return fail(
      `${store.dataDir} holds no embedded store: name the directory the service ran on with --data DIR (AGENT_CHAT_DATA).`,
    );
  let source;
  try {
    source = await engines.open(store.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    return fail(
      `${store.dataDir} is in use by ${error.holder ? `process ${error.holder.pid}` : 'another process'}, the service running on it. ` +
        'Stop it first (SIGTERM: it finishes its answers), then run the move again: it copies a store nobody writes. ' +
        `If no such process runs, delete ${join(store.dataDir, LOCK_FILE)}.`,
    );
  }
  const into = where(store.databaseUrl);
  let target: SqlClient | undefined;
  try {
    target = await engines.connect(store.databaseUrl);
    out.print(`Copying the embedded store in ${store.dataDir} into ${into}, in one transaction…`);
    const started = performance.now();
    const moved = await moveStore(source.client, target);
    report(moved, (performance.now() - started) / 1000, store.dataDir, out);
    return 0;
  } catch (error) {
    if (error instanceof TargetNotEmptyError)
      return fail(
        `${error.message}\nThe move copies into an empty database only: create one (createdb) and point DATABASE_URL at it. The service's tables there are made by the move.`,
      );
    const message = error instanceof Error ? error.message : String(error);
    return fail(`${message}\nNothing was copied: ${into} keeps no row of this move.`);
  } finally {
    await target?.close();
    await source.stores.close();
  }
}

/** The tables copied with their rows, the total, and what to do next. */
function report(moved: MovedTable[], seconds: number, dataDir: string, out: MoveOutput) {
  const width = Math.max(...moved.map((m) => m.table.length));
  const rows = moved.reduce((sum, m) => sum + m.rows, 0);
  const sorted = [...moved].sort((a, b) => a.table.localeCompare(b.table));
  out.print(`  ${'table'.padEnd(width)}  rows`);
  for (const m of sorted) out.print(`  ${m.table.padEnd(width)}  ${m.rows}`);
  out.print(`Copied ${rows} rows of ${moved.length} tables in ${seconds.toFixed(1)} s.`);
  out.print(
    `Next: start the service with DATABASE_URL set to this database and the same flags as before (without --data). ` +
      `Keep ${dataDir} as it is: it is the way back, and still opens with --data.`,
  );
}
