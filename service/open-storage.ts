import { mkdir } from 'node:fs/promises';
import { SqlStorage, type SqlClient } from './storage-sql.js';

/**
 * Opens the service's database: PostgreSQL when `databaseUrl` is set, else the embedded
 * PGlite store in `dataDir` (in memory when that is absent too). The drivers are imported
 * here, on demand, so the service core stays free of them (it also runs in a browser).
 */
export async function openStorage(options: { databaseUrl?: string; dataDir?: string }): Promise<SqlStorage> {
  return SqlStorage.open(options.databaseUrl ? await postgresClient(options.databaseUrl) : await pgliteClient(options.dataDir));
}

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

async function postgresClient(connectionString: string): Promise<SqlClient> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  // An idle client losing its server (a restart) must not crash the process.
  pool.on('error', () => {});
  const query: SqlClient['query'] = async (sql, params) => {
    const result = await pool.query(sql, params);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
  return {
    query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(async (sql, params) => {
          const r = await client.query(sql, params);
          return { rows: r.rows, rowCount: r.rowCount ?? 0 };
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
