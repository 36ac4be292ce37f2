import { DEFAULT_DAILY_BUDGET } from '../console-types.js';
import type {
  ApiKeyPatch,
  ApiKeyRecord,
  DirectoryStore,
  IntegrationInput,
  IntegrationPatch,
  IntegrationRecord,
  OwnerTraces,
  ProjectRecord,
  SessionRecord,
} from '../types.js';
import type { MemoryState } from './state.js';

const oldestFirst = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1);

/** Projects, integrations, API keys and sessions in memory; a project's delete reaches into the shared state. */
export class MemoryDirectoryStore implements DirectoryStore {
  private readonly projects = new Map<string, ProjectRecord>();
  private integrations: IntegrationRecord[] = [];
  private keys: ApiKeyRecord[] = [];
  private readonly sessions = new Map<string, SessionRecord>();

  constructor(private readonly state: MemoryState) {}

  async createProject(project: ProjectRecord) {
    if (this.projects.has(project.id)) return false;
    this.projects.set(project.id, { ...project });
    return true;
  }

  async getProject(id: string) {
    const project = this.projects.get(id);
    return project && { ...project };
  }

  async listProjects() {
    return [...this.projects.values()].sort(oldestFirst).map((p) => ({ ...p }));
  }

  async renameProject(id: string, name: string) {
    const project = this.projects.get(id);
    if (project) project.name = name;
    return !!project;
  }

  async deleteProject(id: string) {
    const { state } = this;
    if (!this.projects.delete(id)) return false;
    this.integrations = this.integrations.filter((i) => i.projectId !== id);
    this.keys = this.keys.filter((k) => k.projectId !== id);
    // A copy: deleting a thread deletes from the map being read.
    for (const t of Array.from(state.threads.values())) if (t.projectId === id) state.deleteThread(t.id);
    for (const [key, f] of state.feedback) if (f.projectId === id) state.feedback.delete(key);
    for (const [token, s] of this.sessions) if (s.projectId === id) this.sessions.delete(token);
    state.events = state.events.filter((e) => e.projectId !== id);
    for (const [fileId, f] of state.files) if (f.projectId === id) state.files.delete(fileId);
    for (const key of state.fileSettings.keys())
      if (key.startsWith(`${id}\n`)) state.fileSettings.delete(key);
    for (const drop of state.projectParts) drop(id);
    return true;
  }

  async createIntegration(integration: IntegrationInput) {
    if (
      !this.projects.has(integration.projectId) ||
      this.integrations.some((i) => i.projectId === integration.projectId && i.id === integration.id)
    )
      return false;
    this.integrations.push(
      structuredClone({ public: false, budget: { ...DEFAULT_DAILY_BUDGET }, ...integration }),
    );
    return true;
  }

  async listIntegrations(projectId: string) {
    return structuredClone(this.integrations.filter((i) => i.projectId === projectId).sort(oldestFirst));
  }

  async updateIntegration(projectId: string, id: string, patch: IntegrationPatch) {
    const found = this.integrations.find((i) => i.projectId === projectId && i.id === id);
    if (!found) return undefined;
    if (patch.name !== undefined) found.name = patch.name;
    if (patch.allowedOrigins !== undefined) found.allowedOrigins = [...patch.allowedOrigins];
    if (patch.public !== undefined) found.public = patch.public;
    if (patch.budget !== undefined) found.budget = { ...patch.budget };
    return structuredClone(found);
  }

  /** For the files role, whose settings belong to an integration. */
  hasProject(projectId: string): boolean {
    return this.projects.has(projectId);
  }

  hasIntegration(projectId: string, id: string): boolean {
    return this.integrations.some((i) => i.projectId === projectId && i.id === id);
  }

  async deleteIntegration(projectId: string, id: string) {
    const before = this.integrations.length;
    this.integrations = this.integrations.filter((i) => !(i.projectId === projectId && i.id === id));
    this.state.fileSettings.delete(`${projectId}\n${id}`);
    return this.integrations.length < before;
  }

  async createApiKey(key: ApiKeyRecord) {
    if (
      !this.projects.has(key.projectId) ||
      this.keys.some((k) => k.id === key.id || (k.projectId === key.projectId && k.hash === key.hash))
    )
      return false;
    this.keys.push({ ...key });
    return true;
  }

  async listApiKeys(projectId: string) {
    return this.keys
      .filter((k) => k.projectId === projectId)
      .sort(oldestFirst)
      .map((k) => ({ ...k }));
  }

  async updateApiKey(projectId: string, id: string, patch: ApiKeyPatch) {
    const key = this.keys.find((k) => k.projectId === projectId && k.id === id);
    if (!key) return undefined;
    if (patch.name !== undefined) key.name = patch.name;
    if (patch.expiresAt !== undefined) key.expiresAt = patch.expiresAt;
    if (patch.revokedAt !== undefined) key.revokedAt = patch.revokedAt;
    if (patch.lastUsedAt !== undefined && patch.lastUsedAt !== null)
      key.lastUsedAt = Math.max(key.lastUsedAt ?? 0, patch.lastUsedAt);
    return { ...key };
  }

  async putSession(session: SessionRecord) {
    this.sessions.set(session.tokenHash, { ...session });
  }

  async endKeySessions(projectId: string, keyId: string, at: number) {
    const key = this.keys.find((k) => k.projectId === projectId && k.id === keyId);
    if (!key) return undefined;
    key.sessionsEndedAt ??= at;
    let ended = 0;
    for (const [hash, session] of this.sessions)
      if (session.keyId === keyId) {
        this.sessions.delete(hash);
        ended += 1;
      }
    return ended;
  }

  async getSession(tokenHash: string) {
    const session = this.sessions.get(tokenHash);
    return session && { ...session };
  }

  async forgetOwner(projectId: string, owner: string): Promise<OwnerTraces> {
    const { state } = this;
    const traces = { sessions: 0, feedback: 0, files: 0, events: 0 };
    const mine = (r: { projectId: string; owner?: string | null }) =>
      r.projectId === projectId && r.owner === owner;
    for (const [hash, s] of this.sessions) if (mine(s) && this.sessions.delete(hash)) traces.sessions += 1;
    for (const [key, f] of state.feedback) if (mine(f) && state.feedback.delete(key)) traces.feedback += 1;
    for (const [id, f] of state.files)
      if (f.projectId === projectId && f.uploader === `owner:${owner}` && f.threadId === null) {
        state.files.delete(id);
        traces.files += 1;
      }
    for (const key of state.asks.keys())
      if (key.startsWith(`${projectId}\n${owner}\n`)) state.asks.delete(key);
    state.events = state.events.map((e) => {
      if (!mine(e)) return e;
      traces.events += 1;
      return { ...e, owner: null };
    });
    return traces;
  }

  async purgeSessions(before: number) {
    let purged = 0;
    for (const [hash, session] of this.sessions) {
      if (session.expiresAt < before) {
        this.sessions.delete(hash);
        purged += 1;
      }
    }
    return purged;
  }
}
