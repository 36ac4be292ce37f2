import type { SqlClient } from '../sql-client.js';
import type {
  AccountStore,
  AdminRole,
  NewAdmin,
  AuditEntry,
  AuditFilter,
  ConsoleSessionRecord,
} from '../types.js';
import { num, numOrNull } from './rows.js';

/** Sign-in failures count for minutes; a day is far past any window. */
const SIGN_IN_FAILURES_KEPT_MS = 86_400_000;

const toAudit = (r: Record<string, unknown>): AuditEntry => ({
  id: num(r.id),
  at: num(r.at),
  actor: r.actor as string,
  action: r.action as string,
  projectId: (r.project_id as string | null) ?? null,
  target: (r.target as string | null) ?? null,
  detail: (r.detail as Record<string, unknown> | null) ?? null,
  address: (r.address as string | null) ?? null,
});

/** The console's admins, their sessions, failed sign-ins and the audit log, in SQL. */
export class SqlAccountStore implements AccountStore {
  constructor(private readonly db: SqlClient) {}

  async createAdmin(a: NewAdmin) {
    const { rowCount } = await this.db.query(
      'INSERT INTO admins (username, password_hash, created_at, role) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [a.username, a.passwordHash, a.createdAt, a.role ?? 'admin'],
    );
    return rowCount > 0;
  }

  async getAdmin(username: string) {
    const { rows } = await this.db.query('SELECT * FROM admins WHERE username = $1', [username]);
    return (
      rows[0] && {
        username: rows[0].username as string,
        role: rows[0].role as AdminRole,
        passwordHash: rows[0].password_hash as string,
        createdAt: num(rows[0].created_at),
      }
    );
  }

  async listAdmins() {
    const { rows } = await this.db.query(
      'SELECT username, role, created_at, last_sign_in_at FROM admins ORDER BY username',
    );
    return rows.map((r) => ({
      username: r.username as string,
      role: r.role as AdminRole,
      createdAt: num(r.created_at),
      lastSignInAt: numOrNull(r.last_sign_in_at),
    }));
  }

  async removeAdmin(username: string, { allowNone }: { allowNone: boolean }) {
    // The other admins are locked while the row goes: two removals at once cannot both see the
    // other still there. The sessions go with the admin (ON DELETE CASCADE). A viewer may always go.
    const { rowCount } = await this.db.query(
      `DELETE FROM admins WHERE username = $1
         AND ($2 OR role <> 'admin' OR EXISTS (SELECT 1 FROM admins WHERE username <> $1 AND role = 'admin' FOR UPDATE))`,
      [username, allowNone],
    );
    if (rowCount > 0) return 'removed';
    return (await this.getAdmin(username)) ? 'last' : 'missing';
  }

  async setRole(username: string, role: AdminRole) {
    // As removeAdmin: the other admins are locked, so two admins making each other viewers leave one.
    const { rows } = await this.db.query(
      `UPDATE admins SET role = $2 WHERE username = $1 AND role <> $2
         AND ($2 = 'admin' OR EXISTS (SELECT 1 FROM admins WHERE username <> $1 AND role = 'admin' FOR UPDATE))
       RETURNING username`,
      [username, role],
    );
    if (rows.length) return 'changed';
    const admin = await this.getAdmin(username);
    if (!admin) return 'missing';
    return admin.role === role ? 'same' : 'last';
  }

  async hasAdmins() {
    const { rows } = await this.db.query('SELECT 1 FROM admins LIMIT 1');
    return rows.length > 0;
  }

  async setPasswordHash(username: string, passwordHash: string, replacing?: string) {
    const { rowCount } = await this.db.query(
      'UPDATE admins SET password_hash = $2 WHERE username = $1 AND ($3::text IS NULL OR password_hash = $3)',
      [username, passwordHash, replacing ?? null],
    );
    return rowCount > 0;
  }

  async putConsoleSession(s: ConsoleSessionRecord, signedInWith?: string) {
    // One statement: the admin's row is updated (and so locked) before the session is written,
    // and a removed admin gets neither.
    const { rows } = await this.db.query(
      `WITH signed AS (
         UPDATE admins SET last_sign_in_at = $4
         WHERE username = $2 AND ($6::text IS NULL OR password_hash = $6) RETURNING username)
       INSERT INTO console_sessions (token_hash, username, csrf, created_at, expires_at)
       SELECT $1, username, $3, $4, $5 FROM signed RETURNING token_hash`,
      [s.tokenHash, s.username, s.csrf, s.createdAt, s.expiresAt, signedInWith ?? null],
    );
    return rows.length > 0;
  }

  async endConsoleSessions(username: string, exceptTokenHash?: string) {
    const { rowCount } = await this.db.query(
      'DELETE FROM console_sessions WHERE username = $1 AND token_hash IS DISTINCT FROM $2',
      [username, exceptTokenHash ?? null],
    );
    return rowCount;
  }

  async getConsoleSession(tokenHash: string) {
    // The role is the admin's now, not the sign-in's: a change applies at the session's next call.
    const { rows } = await this.db.query(
      'SELECT s.*, a.role FROM console_sessions s JOIN admins a USING (username) WHERE s.token_hash = $1',
      [tokenHash],
    );
    const r = rows[0];
    return (
      r && {
        tokenHash: r.token_hash as string,
        username: r.username as string,
        role: r.role as AdminRole,
        csrf: r.csrf as string,
        createdAt: num(r.created_at),
        expiresAt: num(r.expires_at),
      }
    );
  }

  async deleteConsoleSession(tokenHash: string) {
    await this.db.query('DELETE FROM console_sessions WHERE token_hash = $1', [tokenHash]);
  }

  async countSignInAttempt(attempt: string, keys: { key: string; since: number }[], at: number) {
    // Two statements: the count must see the rows other attempts committed after this one's.
    await this.db.query('INSERT INTO sign_in_failures (key, at, attempt) SELECT unnest($1::text[]), $2, $3', [
      keys.map((k) => k.key),
      at,
      attempt,
    ]);
    const { rows } = await this.db.query(
      `SELECT k.key, count(f.key) AS count, min(f.at) FILTER (WHERE f.attempt IS DISTINCT FROM $3) AS oldest,
         max(f.at) FILTER (WHERE f.attempt IS DISTINCT FROM $3) AS latest
       FROM unnest($1::text[], $2::bigint[]) AS k(key, since)
       LEFT JOIN sign_in_failures f ON f.key = k.key AND f.at >= k.since
       GROUP BY k.key`,
      [keys.map((k) => k.key), keys.map((k) => k.since), attempt],
    );
    const byKey = new Map(rows.map((r) => [r.key as string, r]));
    return keys.map(({ key }) => ({
      key,
      count: num(byKey.get(key)?.count ?? 0),
      oldest: numOrNull(byKey.get(key)?.oldest),
      latest: numOrNull(byKey.get(key)?.latest),
    }));
  }

  async forgetSignInAttempt(attempt: string) {
    await this.db.query('DELETE FROM sign_in_failures WHERE attempt = $1', [attempt]);
  }

  async clearSignInFailures(key: string) {
    await this.db.query('DELETE FROM sign_in_failures WHERE key = $1', [key]);
  }

  async purgeExpired(before: number) {
    await this.db.query('DELETE FROM console_sessions WHERE expires_at < $1', [before]);
    await this.db.query('DELETE FROM sign_in_failures WHERE at < $1', [before - SIGN_IN_FAILURES_KEPT_MS]);
  }

  async appendAudit(e: Omit<AuditEntry, 'id'>) {
    await this.db.query(
      'INSERT INTO audit_log (at, actor, action, project_id, target, detail, address) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)',
      [
        e.at,
        e.actor,
        e.action,
        e.projectId,
        e.target,
        e.detail === null ? null : JSON.stringify(e.detail),
        e.address,
      ],
    );
  }

  async listAudit({ limit, before, projectId, actor, action, from, to }: AuditFilter) {
    const { rows } = await this.db.query(
      `SELECT * FROM audit_log WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR project_id = $2 OR project_id IS NULL)
         AND ($4::text IS NULL OR actor = $4) AND ($5::text IS NULL OR action = $5)
         AND ($6::bigint IS NULL OR at >= $6) AND ($7::bigint IS NULL OR at < $7)
       ORDER BY id DESC LIMIT $3`,
      [before ?? null, projectId ?? null, limit, actor ?? null, action ?? null, from ?? null, to ?? null],
    );
    return rows.map(toAudit);
  }
}
