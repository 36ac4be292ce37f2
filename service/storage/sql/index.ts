/**
 * The PostgreSQL dialect, shared by the embedded store (PGlite) and a real server (pg): every
 * role over one client, the schema brought up to date first.
 */
import { MIGRATIONS } from '../migrations.js';
import type { SqlClient } from '../sql-client.js';
import type { Stores } from '../types.js';
import { SqlAccountStore } from './accounts.js';
import { SqlActivityStore } from './activity.js';
import { SqlConversationStore } from './conversations.js';
import { SqlDirectoryStore } from './directory.js';
import { SqlFileStore } from './files.js';
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

/** Brings the schema up to date (under an advisory lock: instances may start together). */
export async function migrate(db: SqlClient): Promise<void> {
  await db.transaction(async (query) => {
    await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)',
    );
    const { rows } = await query('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
    for (let version = num(rows[0].version) + 1; version <= MIGRATIONS.length; version++) {
      for (const statement of MIGRATIONS[version - 1].split(/;\s*\n/))
        if (statement.trim()) await query(statement);
      await query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        version,
        Date.now(),
      ]);
    }
  });
}

/** Every role of the service on one SQL client; closing the bundle closes the client. */
export async function openSqlStores(db: SqlClient): Promise<Stores> {
  await migrate(db);
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
    close: async () => {
      await directory.close();
      await db.close();
    },
  };
}
