/**
 * The PostgreSQL dialect, shared by the embedded store (PGlite) and a real server (pg): every
 * role over one client, the schema brought up to date first.
 */
import { MIGRATIONS, OLDEST_COMPATIBLE_SCHEMA } from '../migrations.js';
import type { SqlClient } from '../sql-client.js';
import type { Stores } from '../types.js';
import { SqlAccountStore } from './accounts.js';
import { SqlActivityStore } from './activity.js';
import { SqlConversationStore } from './conversations.js';
import { SqlDirectoryStore } from './directory.js';
import { SqlFileStore } from './files.js';
import { SqlWidgetStore } from './widgets.js';
import { SqlDocsStore } from './docs.js';
import { SqlFleetStore } from './fleet.js';
import { SqlGateStore } from './gate.js';
import { SqlAnswerLedger } from './ledger.js';
import { SqlNotificationStore } from './notifications.js';
import { SqlRateStore } from './rates.js';
import { num } from './rows.js';

export type { SqlClient };

/** Any fixed number: it only has to be the same for every instance sharing a database. */
const MIGRATION_LOCK = 4_181_021;

/**
 * A database whose schema a newer release migrated past what this build may run on (decision
 * 732): the instance does not start, rather than write rows the newer one cannot read.
 */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/**
 * Brings the schema up to date (under an advisory lock: instances may start together), and
 * answers the database's schema version: above this build's own when a newer release migrated
 * it, which this build runs on only where that release says its schema still suits it.
 */
export async function migrate(db: SqlClient): Promise<number> {
  return db.transaction(async (query) => {
    await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)',
    );
    // What each version's build said of the builds before it (OLDEST_COMPATIBLE_SCHEMA); added
    // once, so that a start does no DDL (nor needs to own the table) when it is there.
    const column = await query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'oldest_compatible'",
    );
    if (!column.rows.length) await query('ALTER TABLE schema_migrations ADD COLUMN oldest_compatible int');
    const { rows } = await query(
      'SELECT coalesce(max(version), 0) AS version, coalesce(max(oldest_compatible), 0) AS oldest FROM schema_migrations',
    );
    const current = num(rows[0].version);
    if (current > MIGRATIONS.length && num(rows[0].oldest) > MIGRATIONS.length)
      throw new SchemaTooNewError(
        `the database's schema is at version ${current}, migrated by a newer release that builds before schema ${num(rows[0].oldest)} may not run on; this build's is ${MIGRATIONS.length}. Start the newer release (to go back to this one, restore the backup taken before the upgrade).`,
      );
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      for (const statement of MIGRATIONS[version - 1].split(/;\s*\n/))
        if (statement.trim()) await query(statement);
      await query(
        'INSERT INTO schema_migrations (version, applied_at, oldest_compatible) VALUES ($1, $2, $3)',
        [version, Date.now(), OLDEST_COMPATIBLE_SCHEMA],
      );
    }
    return Math.max(current, MIGRATIONS.length);
  });
}

/** Every role of the service on one SQL client; closing the bundle closes the client. */
export async function openSqlStores(
  db: SqlClient,
  options: {
    /** The schema is newer than this build's, from a newer release, and suits it still (decision 732). */
    newerSchema?: (database: number, build: number) => void;
  } = {},
): Promise<Stores> {
  const version = await migrate(db);
  if (version > MIGRATIONS.length) options.newerSchema?.(version, MIGRATIONS.length);
  const schema = String((await db.query('SELECT current_schema() AS schema')).rows[0].schema);
  // The fleet's NOTIFY channel: one per schema, so fleets on one database stay apart.
  const channel = schema === 'public' ? 'agent_chat' : `agent_chat.${schema}`.slice(0, 63);
  const fleet = new SqlFleetStore(db, channel);
  const directory = new SqlDirectoryStore(db, fleet);
  return {
    conversations: new SqlConversationStore(db),
    ledger: new SqlAnswerLedger(db),
    fleet,
    rates: new SqlRateStore(db),
    activity: new SqlActivityStore(db),
    directory,
    accounts: new SqlAccountStore(db),
    gate: new SqlGateStore(db),
    files: new SqlFileStore(db),
    docs: new SqlDocsStore(db),
    notifications: new SqlNotificationStore(db),
    widgets: new SqlWidgetStore(db),
    close: async () => {
      await directory.close();
      await db.close();
    },
  };
}
