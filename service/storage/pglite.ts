import { mkdir } from 'node:fs/promises';
import type { SqlClient } from './sql.js';

/** The embedded store: PGlite in a data directory (in memory without one). */
export async function pgliteClient(dataDir?: string): Promise<SqlClient> {
  const { PGlite } = await import('@electric-sql/pglite');
  // PGlite creates the last directory only.
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const query: SqlClient['query'] = async (sql, params) => {
    const result = await db.query<Record<string, unknown>>(sql, params);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    query,
    transaction: (fn) => db.transaction((tx) => fn(async (sql, params) => {
      const result = await tx.query<Record<string, unknown>>(sql, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    })),
    close: () => db.close(),
  };
}
