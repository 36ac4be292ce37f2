import type { AccountStore, AdminRecord, AuditEntry, ConsoleSessionRecord } from '../types.js';

/** Sign-in failures count for minutes; a day is far past any window. */
const SIGN_IN_FAILURES_KEPT_MS = 86_400_000;

/** The console's admins, their sessions, failed sign-ins and the audit log in memory: no other role reads them. */
export class MemoryAccountStore implements AccountStore {
  private readonly admins = new Map<string, AdminRecord>();
  private readonly consoleSessions = new Map<string, ConsoleSessionRecord>();
  private signInFailureLog: { key: string; at: number; attempt: string | null }[] = [];
  private readonly audit: AuditEntry[] = [];

  async createAdmin(admin: AdminRecord) {
    if (this.admins.has(admin.username)) return false;
    this.admins.set(admin.username, { ...admin });
    return true;
  }

  async getAdmin(username: string) {
    const admin = this.admins.get(username);
    return admin && { ...admin };
  }

  async hasAdmins() {
    return this.admins.size > 0;
  }

  async setPasswordHash(username: string, passwordHash: string) {
    const admin = this.admins.get(username);
    if (admin) admin.passwordHash = passwordHash;
    return !!admin;
  }

  async putConsoleSession(session: ConsoleSessionRecord) {
    this.consoleSessions.set(session.tokenHash, { ...session });
  }

  async getConsoleSession(tokenHash: string) {
    const session = this.consoleSessions.get(tokenHash);
    return session && { ...session };
  }

  async deleteConsoleSession(tokenHash: string) {
    this.consoleSessions.delete(tokenHash);
  }

  async countSignInAttempt(attempt: string, keys: { key: string; since: number }[], at: number) {
    for (const { key } of keys) this.signInFailureLog.push({ key, at, attempt });
    return keys.map(({ key, since }) => {
      const rows = this.signInFailureLog.filter((f) => f.key === key && f.at >= since);
      const others = rows.filter((f) => f.attempt !== attempt).map((f) => f.at);
      return {
        key,
        count: rows.length,
        oldest: others.length ? Math.min(...others) : null,
        latest: others.length ? Math.max(...others) : null,
      };
    });
  }

  async forgetSignInAttempt(attempt: string) {
    this.signInFailureLog = this.signInFailureLog.filter((f) => f.attempt !== attempt);
  }

  async clearSignInFailures(key: string) {
    this.signInFailureLog = this.signInFailureLog.filter((f) => f.key !== key);
  }

  async purgeExpired(before: number) {
    for (const [hash, s] of this.consoleSessions) if (s.expiresAt < before) this.consoleSessions.delete(hash);
    this.signInFailureLog = this.signInFailureLog.filter((f) => f.at >= before - SIGN_IN_FAILURES_KEPT_MS);
  }

  async appendAudit(entry: Omit<AuditEntry, 'id'>) {
    this.audit.push(structuredClone({ ...entry, id: this.audit.length + 1 }));
  }

  async listAudit({ limit, before, projectId }: { limit: number; before?: number; projectId?: string }) {
    return structuredClone(
      this.audit
        .filter(
          (e) =>
            (before === undefined || e.id < before) &&
            (!projectId || e.projectId === projectId || e.projectId === null),
        )
        .reverse()
        .slice(0, limit),
    );
  }
}
