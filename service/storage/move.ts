/**
 * A whole store copied into another database of the same schema (decision 509): every table the
 * migrations define, read in batches, written in one transaction on the target, so the target
 * ends with all of it or none of it.
 */
import { MIGRATIONS } from './migrations.js';
import type { SqlClient } from './sql-client.js';
import { migrate } from './sql/index.js';
import { num } from './sql/rows.js';

/**
 * Rows one read takes, so what the move holds is one batch, whatever the store's size. A table
 * with bytes in its rows (the visitors' files, up to 20 MB each) is read a row at a time.
 */
export const BATCH_ROWS = 500;

/**
 * Tables of the instances that ran, not of the data: their leases, the slots of answers in
 * flight, the crawl lease and a crawl's progress, when the rollup was last rebuilt (so the
 * first instance on the target rebuilds it at once), the fleet's sealing key, and the schema's
 * version. The source's stay behind; the target's own stay as they are and do not count as data.
 */
export const INSTANCE_TABLES: readonly string[] = [
  'schema_migrations',
  'instances',
  'answer_slots',
  'doc_crawl_lease',
  'doc_crawl_progress',
  'fleet_state',
  'fleet_secret',
];

/**
 * Tables the target writes itself from the rows copied: the citations, which the trigger on
 * messages writes as each message arrives (decision 747), so a copy of the source's would only
 * collide with them.
 */
export const DERIVED_TABLES: readonly string[] = ['citations'];

/** A table the move copies: its name, the tables its foreign keys name, whether its rows hold bytes. */
interface Table {
  name: string;
  parents: string[];
  bytes: boolean;
}

/** What the move copied of one table. */
export interface MovedTable {
  table: string;
  rows: number;
}

/** The target holds rows already: the move copies into an empty database only (decision 510). */
export class TargetNotEmptyError extends Error {
  constructor(readonly tables: string[]) {
    super(`the target database already holds rows in ${tables.join(', ')}; nothing was copied.`);
    this.name = 'TargetNotEmptyError';
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Copies every table of `source` but the instances' own into `target`: the target's schema is
 * brought up to date first (its own transaction), then one transaction refuses a target with
 * data, copies the tables (parents before the tables whose keys name them), moves each sequence
 * past the copied ids and rebuilds the materialized views. Whatever fails, the target keeps no
 * row of it. `source` must be migrated by this build already (the embedded store is, when opened).
 */
export async function moveStore(source: SqlClient, target: SqlClient): Promise<MovedTable[]> {
  await migrate(target);
  await sameSchema(source, 'source');
  await sameSchema(target, 'target');
  const tables = await copiedTables(source);
  return target.transaction(async (query) => {
    const names = tables.map((t) => quoted(t.name)).join(', ');
    // No other writer between the check and the commit (a service started on it meanwhile).
    await query(`LOCK TABLE ${names} IN EXCLUSIVE MODE`);
    const held: string[] = [];
    for (const { name } of tables)
      if ((await query(`SELECT EXISTS (SELECT 1 FROM ${quoted(name)}) AS held`)).rows[0].held === true)
        held.push(name);
    if (held.length) throw new TargetNotEmptyError(held);
    const moved: MovedTable[] = [];
    for (const table of tables)
      moved.push({ table: table.name, rows: await copyTable(source, query, table) });
    await continueSequences(query, tables);
    const views = await query(
      'SELECT quote_ident(matviewname) AS name FROM pg_matviews WHERE schemaname = current_schema()',
    );
    for (const view of views.rows) await query(`REFRESH MATERIALIZED VIEW ${String(view.name)}`);
    return moved;
  });
}

/** A schema of another version has other columns: this build moves only its own. */
async function sameSchema(db: SqlClient, which: 'source' | 'target'): Promise<void> {
  const { rows } = await db.query('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
  const version = num(rows[0].version);
  if (version !== MIGRATIONS.length)
    throw new Error(
      `the ${which} database's schema is at version ${version}, this build's at ${MIGRATIONS.length}: move with the build that last ran on it.`,
    );
}

/** The tables to copy, each after the tables its foreign keys name. */
async function copiedTables(source: SqlClient): Promise<Table[]> {
  const { rows } = await source.query(
    `SELECT c.relname::text AS name,
       array(SELECT p.relname::text FROM pg_constraint k JOIN pg_class p ON p.oid = k.confrelid
             WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid <> c.oid) AS parents,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0
               AND NOT a.attisdropped AND a.atttypid = 'bytea'::regtype) AS bytes
     FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
     ORDER BY c.relname`,
  );
  const left = rows
    .map((r) => ({ name: String(r.name), parents: r.parents as string[], bytes: r.bytes === true }))
    .filter((t) => !INSTANCE_TABLES.includes(t.name) && !DERIVED_TABLES.includes(t.name));
  const ordered: Table[] = [];
  while (left.length) {
    const ready = left.findIndex((t) => t.parents.every((p) => ordered.some((o) => o.name === p)));
    if (ready < 0) throw new Error(`the tables ${left.map((t) => t.name).join(', ')} name each other.`);
    ordered.push(...left.splice(ready, 1));
  }
  return ordered;
}

/**
 * One table, batch by batch in its physical order (nothing writes the source meanwhile): each
 * batch read as one JSON text and written by the target's own conversion of it, so every value
 * (bigint, bytea, jsonb, arrays, ranges) arrives as PostgreSQL wrote it, never through
 * JavaScript numbers.
 */
async function copyTable(source: SqlClient, query: SqlClient['query'], table: Table): Promise<number> {
  const name = quoted(table.name);
  const limit = table.bytes ? 1 : BATCH_ROWS;
  const read = `SELECT count(*)::int AS n, max(at)::text AS last, json_agg(r ORDER BY at)::text AS rows
    FROM (SELECT t.ctid AS at, t AS r FROM ${name} t WHERE t.ctid > $1::tid ORDER BY t.ctid LIMIT ${limit}) b`;
  const write = `INSERT INTO ${name} SELECT * FROM json_populate_recordset(NULL::${name}, $1::json)`;
  let after = '(0,0)';
  let copied = 0;
  for (;;) {
    const batch = (await source.query(read, [after])).rows[0];
    const count = num(batch.n);
    if (count === 0) return copied;
    await query(write, [batch.rows]);
    copied += count;
    if (count < limit) return copied;
    after = String(batch.last);
  }
}

/** Each serial column's sequence set to give the next id past the copied ones. */
async function continueSequences(query: SqlClient['query'], tables: Table[]): Promise<void> {
  const { rows } = await query(
    `SELECT c.relname::text AS table, a.attname::text AS column,
       pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS sequence
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0
       AND NOT a.attisdropped AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL`,
  );
  for (const row of rows) {
    if (!tables.some((t) => t.name === row.table)) continue;
    await query(
      `SELECT setval($1, coalesce((SELECT max(${quoted(String(row.column))}) FROM ${quoted(String(row.table))}), 0) + 1, false)`,
      [row.sequence],
    );
  }
}
