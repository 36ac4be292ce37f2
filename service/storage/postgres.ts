import type { SqlClient } from './sql-client.js';

/** How long the listening connection waits before reconnecting, doubling up to the last. */
const RECONNECT_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/**
 * A PostgreSQL server through a node-postgres pool, plus one connection of its own for LISTEN
 * (fleet signals), which reconnects after a drop and says so.
 */
export async function postgresClient(connectionString: string): Promise<SqlClient> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  // An idle client losing its server (a restart) must not crash the process.
  pool.on('error', () => {});
  // Every statement with parameters is prepared once per connection, by a name kept per text:
  // later runs send only the values (no SQL text to write, parse and plan again).
  const names = new Map<string, string>();
  const prepared = (sql: string, params?: unknown[]) => {
    if (!params?.length) return { text: sql, values: params };
    let name = names.get(sql);
    if (!name) names.set(sql, (name = `s${names.size + 1}`));
    return { name, text: sql, values: params };
  };
  const query: SqlClient['query'] = async (sql, params) => {
    const result = await pool.query(prepared(sql, params));
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
  return {
    query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(async (sql, params) => {
          const r = await client.query(prepared(sql, params));
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
    listen: (channel, onPayload, onLost) => listen(pg, connectionString, channel, onPayload, onLost),
  };
}

/**
 * LISTEN on a connection of its own, which reconnects after a drop (with `onLost` first: what
 * came meanwhile is missed); returns a function that stops listening.
 */
async function listen(
  pg: typeof import('pg').default,
  connectionString: string,
  channel: string,
  onPayload: (payload: string) => void,
  onLost: () => void,
): Promise<() => Promise<void>> {
  let client: InstanceType<typeof pg.Client> | undefined;
  let closed = false;
  let attempt = 0;
  const quoted = `"${channel.replaceAll('"', '""')}"`;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    next.on('error', () => {});
    next.on('end', () => {
      if (closed || client !== next) return;
      client = undefined;
      onLost();
      setTimeout(
        () => void reconnect(),
        RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)],
      ).unref?.();
    });
    await next.connect();
    await next.query(`LISTEN ${quoted}`);
    if (closed) return void next.end().catch(() => {});
    client = next;
    attempt = 0;
  };
  const reconnect = async () => {
    if (closed) return;
    try {
      await connect();
    } catch {
      setTimeout(
        () => void reconnect(),
        RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)],
      ).unref?.();
    }
  };
  await connect();
  return async () => {
    closed = true;
    await client?.end().catch(() => {});
    client = undefined;
  };
}
