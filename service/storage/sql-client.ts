/** The little a driver must offer: PGlite and node-postgres both fit behind it. */
export interface SqlClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number }>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<T>(fn: (query: SqlClient['query']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * LISTEN on a connection of its own, for a server other processes share (PostgreSQL).
   * `onLost` says notifications may have been missed (the connection dropped; it reconnects).
   * Absent where one process owns the database (PGlite): signals then stay in the process.
   */
  listen?(
    channel: string,
    onPayload: (payload: string) => void,
    onLost: () => void,
  ): Promise<() => Promise<void>>;
}
