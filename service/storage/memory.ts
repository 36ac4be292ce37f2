import type {
  AdminRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  AuditEntry,
  ConsoleSessionRecord,
  ConversationFilter,
  ConversationSummary,
  IntegrationRecord,
  ProjectRecord,
} from './types.js';
import { LocalSignals } from './local-signals.js';
import { RateWindows } from './rate-windows.js';
import { newestFirst, rollUp } from './rollup.js';
import { summarizeActivity, textMatches } from './summaries.js';
import { PREVIEW_SOURCE_CHARS } from './types.js';
import type {
  ActivityEvent,
  AnswerEnd,
  AnswerSave,
  AnswerStart,
  BeginResult,
  FeedbackRecord,
  MessagePatch,
  MessageRecord,
  Reaction,
  SessionRecord,
  Storage,
  ThreadCursor,
  ThreadMeta,
  ToolCallRecord,
} from './types.js';

/**
 * In-process storage: the browser tests run the service inside Chromium with it. Each method
 * does its whole write synchronously, so the same atomicity rules hold as in SQL.
 */
export class MemoryStorage implements Storage {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly threads = new Map<string, ThreadMeta>();
  private readonly messages = new Map<string, MessageRecord[]>();
  private readonly messageThread = new Map<string, string>();
  private readonly feedback = new Map<string, FeedbackRecord>();
  private events: ActivityEvent[] = [];
  private readonly handoffs = new Map<string, number>();
  private readonly projects = new Map<string, ProjectRecord>();
  private integrations: IntegrationRecord[] = [];
  private keys: ApiKeyRecord[] = [];
  private readonly admins = new Map<string, AdminRecord>();
  private readonly consoleSessions = new Map<string, ConsoleSessionRecord>();
  private signInFailureLog: { key: string; at: number }[] = [];
  private readonly audit: AuditEntry[] = [];
  /** Which instance generates each answer (absent: none). */
  private readonly hosts = new Map<string, string>();
  /** Instances and when each last renewed its lease (this process's clock). */
  private readonly instances = new Map<string, number>();
  private readonly slots = new Map<string, { key: string; at: number }>();
  private readonly slotsPerKey = new Map<string, number>();
  private readonly rates: RateWindows;
  private readonly signals = new LocalSignals();

  constructor(options: { maxRateWindows?: number } = {}) {
    this.rates = new RateWindows(options.maxRateWindows);
  }

  async putSession(session: SessionRecord) {
    this.sessions.set(session.tokenHash, { ...session });
  }

  async getSession(tokenHash: string) {
    const session = this.sessions.get(tokenHash);
    return session && { ...session };
  }

  async createThread(thread: ThreadMeta) {
    this.threads.set(thread.id, { ...thread });
    this.messages.set(thread.id, []);
  }

  async getThread(id: string, { newest }: { newest?: number } = {}) {
    const thread = this.threads.get(id);
    const messages = this.messages.get(id) ?? [];
    return (
      thread && {
        ...thread,
        messages: structuredClone(
          newest === undefined ? messages : messages.slice(Math.max(messages.length - newest, 0)),
        ),
      }
    );
  }

  async renameThread(id: string, title: string) {
    const thread = this.threads.get(id);
    if (!thread) return undefined;
    thread.title = title;
    return { ...thread };
  }

  async deleteThread(id: string) {
    if (!this.threads.delete(id)) return false;
    // Reactions stay, like events: deleting a thread does not rewrite past activity (#12).
    for (const m of this.messages.get(id) ?? []) {
      this.messageThread.delete(m.id);
      this.hosts.delete(m.id);
    }
    this.messages.delete(id);
    return true;
  }

  async listThreads(
    projectId: string,
    owner: string,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    return [...this.threads.values()]
      .filter((t) => t.projectId === projectId && t.owner === owner)
      .sort(newestFirst)
      .filter((t) => !after || newestFirst(after, t) < 0)
      .slice(0, limit)
      .map((t) => {
        const answer = (this.messages.get(t.id) ?? [])
          .filter((m) => m.role === 'assistant' && m.content)
          .at(-1);
        return { ...t, preview: answer?.content.slice(0, PREVIEW_SOURCE_CHARS) ?? '' };
      });
  }

  async appendMessage(threadId: string, message: MessageRecord) {
    const thread = this.threads.get(threadId);
    if (!thread) return false;
    this.messages.get(threadId)!.push(structuredClone(message));
    this.messageThread.set(message.id, threadId);
    thread.updatedAt = Math.max(thread.updatedAt, message.createdAt);
    return true;
  }

  async updateMessage(id: string, patch: MessagePatch) {
    const threadId = this.messageThread.get(id);
    const message = threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
    if (!message) return false;
    Object.assign(message, structuredClone(patch));
    return true;
  }

  private message(id: string) {
    const threadId = this.messageThread.get(id);
    return threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
  }

  async getMessage(id: string) {
    const threadId = this.messageThread.get(id);
    const thread = threadId ? this.threads.get(threadId) : undefined;
    const message = threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
    return thread && message ? { message: structuredClone(message), thread: { ...thread } } : undefined;
  }

  async putFeedback(feedback: FeedbackRecord) {
    if (this.messageThread.has(feedback.messageId))
      this.feedback.set(`${feedback.messageId}\n${feedback.voter}`, { ...feedback });
  }

  async reactions(threadId: string, voter: string) {
    const result = new Map<string, Reaction>();
    for (const m of this.messages.get(threadId) ?? []) {
      const found = this.feedback.get(`${m.id}\n${voter}`);
      if (found) result.set(m.id, found.reaction);
    }
    return result;
  }

  async recordActivity(event: ActivityEvent) {
    this.events.push({ ...event });
  }

  async activity(projectId: string, fromDay: number, toDay: number) {
    return rollUp(this.events, this.feedback.values(), projectId, fromDay, toDay);
  }

  async refreshActivity() {}

  async purge({ sessionsBefore, eventsBefore }: { sessionsBefore: number; eventsBefore: number }) {
    let sessions = 0;
    for (const [hash, session] of this.sessions) {
      if (session.expiresAt < sessionsBefore) {
        this.sessions.delete(hash);
        sessions += 1;
      }
    }
    for (const [hash, s] of this.consoleSessions)
      if (s.expiresAt < sessionsBefore) this.consoleSessions.delete(hash);
    this.signInFailureLog = this.signInFailureLog.filter((f) => f.at >= sessionsBefore - 86_400_000);
    const kept = this.events.filter((e) => e.at >= eventsBefore);
    const events = this.events.length - kept.length;
    this.events = kept;
    return { sessions, events };
  }

  async stopStale(before: number) {
    let count = 0;
    for (const list of this.messages.values()) {
      for (const m of list) {
        if (m.status === 'streaming' && m.updatedAt < before) {
          m.status = 'stopped';
          this.hosts.delete(m.id);
          count += 1;
        }
      }
    }
    return count;
  }

  async close() {}

  // The console's half: the directory, the admin side, the project-wide reads.

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
    return [...this.projects.values()]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((p) => ({ ...p }));
  }

  async renameProject(id: string, name: string) {
    const project = this.projects.get(id);
    if (project) project.name = name;
    return !!project;
  }

  async deleteProject(id: string) {
    if (!this.projects.delete(id)) return false;
    this.integrations = this.integrations.filter((i) => i.projectId !== id);
    this.keys = this.keys.filter((k) => k.projectId !== id);
    // A copy: deleting a thread deletes from the map being read.
    for (const t of Array.from(this.threads.values())) if (t.projectId === id) await this.deleteThread(t.id);
    for (const [key, f] of this.feedback) if (f.projectId === id) this.feedback.delete(key);
    for (const [token, s] of this.sessions) if (s.projectId === id) this.sessions.delete(token);
    this.events = this.events.filter((e) => e.projectId !== id);
    return true;
  }

  async createIntegration(integration: IntegrationRecord) {
    if (
      !this.projects.has(integration.projectId) ||
      this.integrations.some((i) => i.projectId === integration.projectId && i.id === integration.id)
    )
      return false;
    this.integrations.push(structuredClone(integration));
    return true;
  }

  async listIntegrations(projectId: string) {
    return structuredClone(
      this.integrations
        .filter((i) => i.projectId === projectId)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)),
    );
  }

  async updateIntegration(
    projectId: string,
    id: string,
    patch: Partial<Pick<IntegrationRecord, 'name' | 'allowedOrigins'>>,
  ) {
    const found = this.integrations.find((i) => i.projectId === projectId && i.id === id);
    if (!found) return undefined;
    if (patch.name !== undefined) found.name = patch.name;
    if (patch.allowedOrigins !== undefined) found.allowedOrigins = [...patch.allowedOrigins];
    return structuredClone(found);
  }

  async deleteIntegration(projectId: string, id: string) {
    const before = this.integrations.length;
    this.integrations = this.integrations.filter((i) => !(i.projectId === projectId && i.id === id));
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
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
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

  async createAdmin(admin: AdminRecord) {
    if (this.admins.has(admin.username)) return false;
    this.admins.set(admin.username, { ...admin });
    return true;
  }

  async getAdmin(username: string) {
    const admin = this.admins.get(username);
    return admin && { ...admin };
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

  async recordSignInFailure(keys: string[], at: number) {
    for (const key of keys) this.signInFailureLog.push({ key, at });
  }

  async signInFailures(key: string, since: number) {
    const times = this.signInFailureLog.filter((f) => f.key === key && f.at >= since).map((f) => f.at);
    return { count: times.length, oldest: times.length ? Math.min(...times) : null };
  }

  async clearSignInFailures(key: string) {
    this.signInFailureLog = this.signInFailureLog.filter((f) => f.key !== key);
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

  async searchThreads(
    projectId: string,
    f: ConversationFilter,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    const found: ConversationSummary[] = [];
    for (const t of [...this.threads.values()].sort(newestFirst)) {
      if (found.length >= limit) break;
      if (
        t.projectId !== projectId ||
        (f.threadId && t.id !== f.threadId) ||
        (after && newestFirst(after, t) >= 0)
      )
        continue;
      if (
        (f.integrationId && t.integrationId !== f.integrationId) ||
        (f.from !== undefined && t.updatedAt < f.from) ||
        (f.to !== undefined && t.updatedAt >= f.to)
      )
        continue;
      const messages = this.messages.get(t.id) ?? [];
      const reactions = messages.flatMap((m) =>
        [...this.feedback.values()].filter((r) => r.messageId === m.id),
      );
      const summary: ConversationSummary = {
        ...t,
        handoffAt: this.handoffs.get(t.id) ?? null,
        messages: messages.length,
        upvotes: reactions.filter((r) => r.reaction === 'upvote').length,
        downvotes: reactions.filter((r) => r.reaction === 'downvote').length,
        uncertain: messages.some((m) => m.uncertain),
        error: messages.some((m) => m.status === 'error'),
        toolUsed: messages.some((m) => m.toolCalls.length > 0),
      };
      if (
        (f.downvoted && !summary.downvotes) ||
        (f.uncertain && !summary.uncertain) ||
        (f.error && !summary.error) ||
        (f.toolUsed && !summary.toolUsed)
      )
        continue;
      if (
        (f.handoff && summary.handoffAt === null) ||
        (f.q?.trim() && !textMatches([t.title, ...messages.map((m) => m.content)], f.q))
      )
        continue;
      found.push(summary);
    }
    return found;
  }

  async threadFeedback(threadId: string) {
    const ids = new Set((this.messages.get(threadId) ?? []).map((m) => m.id));
    return [...this.feedback.values()]
      .filter((f) => ids.has(f.messageId))
      .sort((a, b) => a.at - b.at)
      .map((f) => structuredClone(f));
  }

  async markHandoff(threadId: string, at: number) {
    if (!this.threads.has(threadId)) return false;
    if (!this.handoffs.has(threadId)) this.handoffs.set(threadId, at);
    return true;
  }

  async activitySummary(projectId: string, fromDay: number, toDay: number, integrationId?: string) {
    return summarizeActivity(
      await this.activity(projectId, fromDay, toDay),
      integrationId,
      await this.activity(projectId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    );
  }

  async beginAnswer({
    thread,
    newThread,
    question,
    answer,
    instanceId,
    events,
    slot,
  }: AnswerStart): Promise<BeginResult> {
    if (!newThread && !this.threads.has(thread.id)) return 'thread_gone';
    if (
      slot &&
      (await this.takeAnswerSlot(slot.key, slot.cap, answer.id, instanceId, answer.createdAt)) !== 'taken'
    )
      return 'cap_reached';
    if (newThread) await this.createThread(thread);
    await this.appendMessage(thread.id, question);
    await this.appendMessage(thread.id, answer);
    this.hosts.set(answer.id, instanceId);
    for (const event of events) this.events.push({ ...event });
    return 'begun';
  }

  async saveAnswers(saves: AnswerSave[], instanceId: string) {
    const held = new Set<string>();
    for (const { id, ...patch } of saves) {
      const message = this.message(id);
      if (!message || message.status !== 'streaming' || this.hosts.get(id) !== instanceId) continue;
      Object.assign(message, structuredClone(patch));
      held.add(id);
    }
    return held;
  }

  async endAnswer({ id, instanceId, patch, events }: AnswerEnd) {
    this.freeSlot(id);
    const message = this.message(id);
    if (!message || this.hosts.get(id) !== instanceId) return false;
    this.hosts.delete(id);
    Object.assign(message, structuredClone(patch));
    for (const event of events) this.events.push({ ...event });
    return true;
  }

  async resumeAnswer(
    id: string,
    expected: ToolCallRecord[],
    toolCalls: ToolCallRecord[],
    updatedAt: number,
    instanceId: string,
  ) {
    const message = this.message(id);
    if (
      !message ||
      message.status !== 'streaming' ||
      this.hosts.has(id) ||
      JSON.stringify(message.toolCalls) !== JSON.stringify(expected)
    )
      return false;
    Object.assign(message, { toolCalls: structuredClone(toolCalls), updatedAt });
    this.hosts.set(id, instanceId);
    return true;
  }

  async heartbeat(instanceId: string) {
    this.instances.set(instanceId, Date.now());
  }

  async retireInstance(instanceId: string) {
    this.instances.delete(instanceId);
  }

  async reapInstances(leaseMs: number, now: number) {
    const seenSince = Date.now() - leaseMs;
    for (const [id, seen] of this.instances) if (seen < seenSince) this.instances.delete(id);
    let count = 0;
    for (const [answerId, instanceId] of this.hosts) {
      if (this.instances.has(instanceId)) continue;
      this.hosts.delete(answerId);
      this.freeSlot(answerId);
      const message = this.message(answerId);
      if (message?.status === 'streaming') {
        Object.assign(message, { status: 'error', updatedAt: now });
        count += 1;
      }
    }
    return count;
  }

  async answerHost(answerId: string, leaseMs: number) {
    if (!this.messageThread.has(answerId)) return undefined;
    const instanceId = this.hosts.get(answerId) ?? null;
    const seen = instanceId === null ? undefined : this.instances.get(instanceId);
    return { instanceId, alive: seen !== undefined && seen >= Date.now() - leaseMs };
  }

  async endOrphan(answerId: string, status: 'stopped' | 'error', now: number, leaseMs: number) {
    const message = this.message(answerId);
    const host = await this.answerHost(answerId, leaseMs);
    if (!message || message.status !== 'streaming' || !host?.instanceId || host.alive) return false;
    this.hosts.delete(answerId);
    this.freeSlot(answerId);
    Object.assign(message, { status, updatedAt: now });
    return true;
  }

  private freeSlot(answerId: string) {
    const slot = this.slots.get(answerId);
    if (!slot) return;
    this.slots.delete(answerId);
    const left = (this.slotsPerKey.get(slot.key) ?? 1) - 1;
    if (left > 0) this.slotsPerKey.set(slot.key, left);
    else this.slotsPerKey.delete(slot.key);
  }

  async takeAnswerSlot(key: string, cap: number, answerId: string, _instanceId: string, now: number) {
    if (this.slots.has(answerId)) return 'held' as const;
    if ((this.slotsPerKey.get(key) ?? 0) >= cap) return 'cap_reached' as const;
    this.slots.set(answerId, { key, at: now });
    this.slotsPerKey.set(key, (this.slotsPerKey.get(key) ?? 0) + 1);
    return 'taken' as const;
  }

  async releaseAnswerSlot(answerId: string) {
    this.freeSlot(answerId);
  }

  async purgeAnswerSlots(before: number) {
    let count = 0;
    for (const [answerId, slot] of this.slots) {
      if (slot.at < before) {
        this.freeSlot(answerId);
        count += 1;
      }
    }
    return count;
  }

  async countRequest(key: string, windowMs: number, now: number) {
    return this.rates.count(key, windowMs, now);
  }

  async purgeRateWindows(now: number, max: number) {
    return this.rates.purge(now, max);
  }

  async refreshActivityOnce() {
    return false;
  }

  async activityAsOf(now: number) {
    return now;
  }

  subscribe(onMessage: (message: string) => void) {
    return this.signals.subscribe(onMessage);
  }

  publish(messages: string[]) {
    return this.signals.publish(messages);
  }
}
