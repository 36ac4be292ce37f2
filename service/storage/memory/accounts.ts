import type {
  AccountStore,
  AdminRecord,
  AdminRole,
  AuditEntry,
  NewAdmin,
  AuditFilter,
  ConsoleSessionRecord,
} from '../types.js';

/** An admin as kept here: its record and when it last signed in. */
type KeptAdmin = AdminRecord & { lastSignInAt: number | null };

/** Sign-in failures count for minutes; a day is far past any window. */
const SIGN_IN_FAILURES_KEPT_MS = 86_400_000;

/** The console's admins, their sessions, failed sign-ins and the audit log in memory: no other role reads them. */
export class MemoryAccountStore implements AccountStore {
  private readonly admins = new Map<string, KeptAdmin>();
  private readonly consoleSessions = new Map<string, ConsoleSessionRecord>();
  private signInFailureLog: { key: string; at: number; attempt: string | null }[] = [];
  private readonly audit: AuditEntry[] = [];

  async createAdmin(admin: NewAdmin) {
    if (this.admins.has(admin.username)) return false;
    this.admins.set(admin.username, { ...admin, role: admin.role ?? 'admin', lastSignInAt: null });
    return true;
  }

  async getAdmin(username: string) {
    const admin = this.admins.get(username);
    return (
      admin && {
        username: admin.username,
        role: admin.role,
        passwordHash: admin.passwordHash,
        createdAt: admin.createdAt,
      }
    );
  }

  async listAdmins() {
    return [...this.admins.values()]
      .map(({ username, role, createdAt, lastSignInAt }) => ({ username, role, createdAt, lastSignInAt }))
      .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  }

  async removeAdmin(username: string, { allowNone }: { allowNone: boolean }) {
    const admin = this.admins.get(username);
    if (!admin) return 'missing';
    if (!allowNone && admin.role === 'admin' && !this.otherAdmin(username)) return 'last';
    this.admins.delete(username);
    await this.endConsoleSessions(username);
    return 'removed';
  }

  private otherAdmin(username: string) {
    return [...this.admins.values()].some((a) => a.username !== username && a.role === 'admin');
  }

  async setRole(username: string, role: AdminRole) {
    const admin = this.admins.get(username);
    if (!admin) return 'missing';
    if (admin.role === role) return 'same';
    if (role !== 'admin' && !this.otherAdmin(username)) return 'last';
    admin.role = role;
    return 'changed';
  }

  async hasAdmins() {
    return this.admins.size > 0;
  }

  async setPasswordHash(username: string, passwordHash: string, replacing?: string) {
    const admin = this.admins.get(username);
    if (!admin || (replacing !== undefined && admin.passwordHash !== replacing)) return false;
    admin.passwordHash = passwordHash;
    return true;
  }

  async putConsoleSession(session: ConsoleSessionRecord, signedInWith?: string) {
    const admin = this.admins.get(session.username);
    if (!admin || (signedInWith !== undefined && admin.passwordHash !== signedInWith)) return false;
    admin.lastSignInAt = session.createdAt;
    this.consoleSessions.set(session.tokenHash, { ...session });
    return true;
  }

  async endConsoleSessions(username: string, exceptTokenHash?: string) {
    let ended = 0;
    for (const [hash, s] of this.consoleSessions)
      if (s.username === username && hash !== exceptTokenHash) {
        this.consoleSessions.delete(hash);
        ended += 1;
      }
    return ended;
  }

  async getConsoleSession(tokenHash: string) {
    const session = this.consoleSessions.get(tokenHash);
    const admin = session && this.admins.get(session.username);
    return session && admin && { ...session, role: admin.role };
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

  async listAudit({ limit, before, projectId, actor, action, from, to }: AuditFilter) {
    return structuredClone(
      this.audit
        .filter(
          (e) =>
            (before === undefined || e.id < before) &&
            (!projectId || e.projectId === projectId || e.projectId === null) &&
            (actor === undefined || e.actor === actor) &&
            (action === undefined || e.action === action) &&
            (from === undefined || e.at >= from) &&
            (to === undefined || e.at < to),
        )
        .reverse()
        .slice(0, limit),
    );
  }
}
