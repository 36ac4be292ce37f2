import type { SqlClient } from '../sql-client.js';
import { SIGNALS_LOST } from '../records.js';
import { DEFAULT_DAILY_BUDGET } from '../console-types.js';
import type {
  ApiKeyPatch,
  ApiKeyRecord,
  DirectoryStore,
  FleetStore,
  IntegrationInput,
  IntegrationPatch,
  IntegrationRecord,
  OwnerTraces,
  ProjectRecord,
  SessionRecord,
} from '../types.js';
import { num, numOrNull } from './rows.js';

/**
 * How long, and how many, sessions read once are answered from memory. Sessions that end early
 * leave every instance's memory at once by a fleet signal; this bounds how long an instance
 * that missed the signal (its LISTEN connection down) still accepts one (decision 631).
 */
const SESSION_CACHE_MS = 5_000;
const SESSION_CACHE_SIZE = 10_000;

/**
 * Which sessions ended early, as the fleet signal names them: all of a project's, those a key
 * minted, or an owner's (last, so any text fits). The fleet store seals it (sealed-signals.ts):
 * the owner id never travels in clear. The answers' decoder ignores it, as any unknown kind.
 */
type EndedSessions = { projectId: string; keyId?: string; owner?: string };

const SESSIONS_ENDED = 'sessions-ended';

function encodeEnded({ projectId, keyId, owner }: EndedSessions): string {
  const by = keyId !== undefined ? `\nkey\n${keyId}` : owner !== undefined ? `\nowner\n${owner}` : '';
  return `${SESSIONS_ENDED}\n${projectId}${by}`;
}

function decodeEnded(message: string): EndedSessions | undefined {
  const [kind, projectId, by, ...rest] = message.split('\n');
  if (kind !== SESSIONS_ENDED || !projectId) return undefined;
  if (by === undefined) return { projectId };
  if (by === 'key') return { projectId, keyId: rest.join('\n') };
  return by === 'owner' ? { projectId, owner: rest.join('\n') } : undefined;
}

const endedBy = (ended: EndedSessions, s: SessionRecord) =>
  s.projectId === ended.projectId &&
  (ended.keyId === undefined || s.keyId === ended.keyId) &&
  (ended.owner === undefined || s.owner === ended.owner);

const toProject = (r: Record<string, unknown>): ProjectRecord => ({
  id: r.id as string,
  name: r.name as string,
  ownerSecret: r.owner_secret as string,
  createdAt: num(r.created_at),
});
const toIntegration = (r: Record<string, unknown>): IntegrationRecord => ({
  projectId: r.project_id as string,
  id: r.id as string,
  name: r.name as string,
  allowedOrigins: r.allowed_origins as string[],
  public: r.public as boolean,
  budget: { sessions: num(r.session_budget), answers: num(r.answer_budget) },
  createdAt: num(r.created_at),
});
const toKey = (r: Record<string, unknown>): ApiKeyRecord => ({
  id: r.id as string,
  projectId: r.project_id as string,
  name: r.name as string,
  prefix: r.prefix as string,
  hash: r.hash as string,
  createdAt: num(r.created_at),
  lastUsedAt: numOrNull(r.last_used_at),
  expiresAt: numOrNull(r.expires_at),
  revokedAt: numOrNull(r.revoked_at),
  sessionsEndedAt: numOrNull(r.sessions_ended_at),
});
const toSession = (r: Record<string, unknown>): SessionRecord => ({
  tokenHash: r.token_hash as string,
  projectId: r.project_id as string,
  owner: (r.owner as string | null) ?? null,
  ...(r.integration_id ? { integrationId: r.integration_id as string } : {}),
  keyId: (r.key_id as string | null) ?? null,
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
});

/**
 * Projects, integrations, API keys and sessions in SQL; sessions read once are kept a few
 * seconds, and forgotten on every instance at once when they end early.
 */
export class SqlDirectoryStore implements DirectoryStore {
  private readonly sessions = new Map<string, { session: SessionRecord; until: number }>();
  /** Counts endings: a read that began before one is not remembered (it may hold an ended session). */
  private endings = 0;
  /** The fleet's signals, joined on the first session read; sessions are remembered only once joined. */
  private joining: Promise<void> | undefined;
  private leave: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly db: SqlClient,
    private readonly fleet: Pick<FleetStore, 'publish' | 'subscribe'>,
  ) {}

  async createProject(p: ProjectRecord) {
    const { rowCount } = await this.db.query(
      'INSERT INTO projects (id, name, owner_secret, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
      [p.id, p.name, p.ownerSecret, p.createdAt],
    );
    return rowCount > 0;
  }

  async getProject(id: string) {
    const { rows } = await this.db.query('SELECT * FROM projects WHERE id = $1', [id]);
    return rows[0] && toProject(rows[0]);
  }

  async listProjects() {
    return (await this.db.query('SELECT * FROM projects ORDER BY created_at, id')).rows.map(toProject);
  }

  async renameProject(id: string, name: string) {
    return (await this.db.query('UPDATE projects SET name = $2 WHERE id = $1', [id, name])).rowCount > 0;
  }

  async deleteProject(id: string) {
    const deleted = await this.db.transaction(async (query) => {
      // Locks the row first: a concurrent create of an integration or key waits, then finds it gone.
      const { rows } = await query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [id]);
      if (!rows.length) return false;
      // A source's pages, sections and runs go with it (foreign keys).
      for (const table of [
        'feedback',
        'events',
        'sessions',
        'threads',
        'idempotency_keys',
        'doc_sources',
        'doc_versions',
        'doc_synonyms',
      ])
        await query(`DELETE FROM ${table} WHERE project_id = $1`, [id]);
      await query('DELETE FROM projects WHERE id = $1', [id]);
      return true;
    });
    // Its sessions went with it, on every instance.
    await this.ended({ projectId: id });
    return deleted;
  }

  async createIntegration(i: IntegrationInput) {
    const budget = i.budget ?? DEFAULT_DAILY_BUDGET;
    const { rowCount } = await this.db.query(
      `INSERT INTO integrations (project_id, id, name, allowed_origins, created_at, public, session_budget, answer_budget)
       SELECT $1, $2, $3, $4::jsonb, $5, $6, $7, $8 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1) ON CONFLICT DO NOTHING`,
      [
        i.projectId,
        i.id,
        i.name,
        JSON.stringify(i.allowedOrigins),
        i.createdAt,
        i.public ?? false,
        budget.sessions,
        budget.answers,
      ],
    );
    return rowCount > 0;
  }

  async listIntegrations(projectId: string) {
    const { rows } = await this.db.query(
      'SELECT * FROM integrations WHERE project_id = $1 ORDER BY created_at, id',
      [projectId],
    );
    return rows.map(toIntegration);
  }

  async updateIntegration(projectId: string, id: string, patch: IntegrationPatch) {
    const { rows } = await this.db.query(
      `UPDATE integrations SET name = coalesce($3, name), allowed_origins = coalesce($4::jsonb, allowed_origins),
         public = coalesce($5, public), session_budget = coalesce($6, session_budget), answer_budget = coalesce($7, answer_budget)
       WHERE project_id = $1 AND id = $2 RETURNING *`,
      [
        projectId,
        id,
        patch.name ?? null,
        patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null,
        patch.public ?? null,
        patch.budget?.sessions ?? null,
        patch.budget?.answers ?? null,
      ],
    );
    return rows[0] && toIntegration(rows[0]);
  }

  async deleteIntegration(projectId: string, id: string) {
    const { rowCount } = await this.db.query('DELETE FROM integrations WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
    ]);
    return rowCount > 0;
  }

  async createApiKey(k: ApiKeyRecord) {
    const { rowCount } = await this.db.query(
      `INSERT INTO api_keys (id, project_id, name, prefix, hash, created_at, last_used_at, expires_at, revoked_at, sessions_ended_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $2) ON CONFLICT DO NOTHING`,
      [
        k.id,
        k.projectId,
        k.name,
        k.prefix,
        k.hash,
        k.createdAt,
        k.lastUsedAt,
        k.expiresAt,
        k.revokedAt,
        k.sessionsEndedAt,
      ],
    );
    return rowCount > 0;
  }

  async listApiKeys(projectId: string) {
    const { rows } = await this.db.query(
      'SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id',
      [projectId],
    );
    return rows.map(toKey);
  }

  async updateApiKey(projectId: string, id: string, patch: ApiKeyPatch) {
    const sets: string[] = [];
    const params: unknown[] = [projectId, id];
    for (const [key, column] of [
      ['name', 'name'],
      ['expiresAt', 'expires_at'],
      ['revokedAt', 'revoked_at'],
      ['lastUsedAt', 'last_used_at'],
    ] as const) {
      if (patch[key] === undefined) continue;
      params.push(patch[key]);
      // Last use only moves forward: two instances touching one key in any order agree.
      sets.push(
        key === 'lastUsedAt'
          ? `${column} = greatest(${column}, $${params.length})`
          : `${column} = $${params.length}`,
      );
    }
    const sql = sets.length
      ? `UPDATE api_keys SET ${sets.join(', ')} WHERE project_id = $1 AND id = $2 RETURNING *`
      : 'SELECT * FROM api_keys WHERE project_id = $1 AND id = $2';
    const { rows } = await this.db.query(sql, params);
    return rows[0] && toKey(rows[0]);
  }

  async putSession(s: SessionRecord) {
    await this.db.query(
      'INSERT INTO sessions (token_hash, project_id, owner, created_at, expires_at, integration_id, key_id) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [s.tokenHash, s.projectId, s.owner, s.createdAt, s.expiresAt, s.integrationId ?? null, s.keyId],
    );
    this.remember(s);
  }

  async endKeySessions(projectId: string, keyId: string, at: number) {
    const { rows } = await this.db.query(
      `WITH key AS (
         UPDATE api_keys SET sessions_ended_at = coalesce(sessions_ended_at, $3) WHERE project_id = $1 AND id = $2 RETURNING id),
       ended AS (DELETE FROM sessions WHERE key_id IN (SELECT id FROM key) RETURNING token_hash)
       SELECT (SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM ended)::int AS ended`,
      [projectId, keyId, at],
    );
    if (!num(rows[0].keys)) return undefined;
    await this.ended({ projectId, keyId });
    return num(rows[0].ended);
  }

  async getSession(tokenHash: string) {
    const known = this.sessions.get(tokenHash);
    if (known && known.until > Date.now()) return { ...known.session };
    const endings = this.endings;
    const joined = this.join();
    const { rows } = await this.db.query('SELECT * FROM sessions WHERE token_hash = $1', [tokenHash]);
    if (!rows[0]) return undefined;
    const session = toSession(rows[0]);
    if (joined && endings === this.endings) this.remember(session);
    return { ...session };
  }

  /** Stops hearing the fleet (the bundle closes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.joining;
    const leave = this.leave;
    this.leave = undefined;
    await leave?.();
  }

  async purgeSessions(before: number) {
    this.sessions.clear();
    return (await this.db.query('DELETE FROM sessions WHERE expires_at < $1', [before])).rowCount;
  }

  async forgetOwner(projectId: string, owner: string): Promise<OwnerTraces> {
    // One statement: all of it goes, or none; then every instance forgets the sessions.
    const { rows } = await this.db.query(
      `WITH s AS (DELETE FROM sessions WHERE project_id = $1 AND owner = $2 RETURNING 1),
         f AS (DELETE FROM feedback WHERE project_id = $1 AND owner = $2 RETURNING 1),
         u AS (DELETE FROM files WHERE project_id = $1 AND uploader = $3 AND thread_id IS NULL RETURNING 1),
         k AS (DELETE FROM idempotency_keys WHERE project_id = $1 AND scope = $2),
         e AS (UPDATE events SET owner = NULL WHERE project_id = $1 AND owner = $2 RETURNING 1)
       SELECT (SELECT count(*) FROM s) AS sessions, (SELECT count(*) FROM f) AS feedback,
         (SELECT count(*) FROM u) AS files, (SELECT count(*) FROM e) AS events`,
      [projectId, owner, `owner:${owner}`],
    );
    await this.ended({ projectId, owner });
    const r = rows[0];
    return {
      sessions: num(r.sessions),
      feedback: num(r.feedback),
      files: num(r.files),
      events: num(r.events),
    };
  }

  /**
   * Forgets the sessions here and tells the fleet to (each instance hears its own signal too).
   * A failed signal is not the caller's failure: the rows are gone, and SESSION_CACHE_MS
   * bounds how long another instance still accepts one.
   */
  private async ended(ended: EndedSessions): Promise<void> {
    this.forget(ended);
    await this.fleet.publish([encodeEnded(ended)]).catch(() => {});
  }

  private forget(ended: EndedSessions | 'all'): void {
    this.endings += 1;
    if (ended === 'all') return this.sessions.clear();
    for (const [hash, { session }] of this.sessions) if (endedBy(ended, session)) this.sessions.delete(hash);
  }

  /** Whether the fleet's signals are heard; the first call starts joining (again after a failure). */
  private join(): boolean {
    if (this.closed) return false;
    this.joining ??= this.fleet
      .subscribe((message) => {
        // Signals missed (the connection dropped): whatever is remembered may have ended.
        if (message === SIGNALS_LOST) return this.forget('all');
        const ended = message.startsWith(SESSIONS_ENDED) ? decodeEnded(message) : undefined;
        if (ended) this.forget(ended);
      })
      .then(
        (leave) => void (this.leave = leave),
        () => void (this.joining = undefined),
      );
    return this.leave !== undefined;
  }

  /**
   * Sessions never change once written (expiry is checked by the caller), so the agent calls
   * of a conversation need not each read the same row: a few seconds in memory, bounded.
   */
  private remember(session: SessionRecord) {
    if (this.sessions.size >= SESSION_CACHE_SIZE) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(session.tokenHash, { session: { ...session }, until: Date.now() + SESSION_CACHE_MS });
  }
}
