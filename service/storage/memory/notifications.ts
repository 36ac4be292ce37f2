import { randomId } from '../../kernel/ids.js';
import type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryRecord,
  NotificationInput,
  NotificationStore,
  WebhookRecord,
} from '../types.js';
import type { MemoryState } from './state.js';

type Row = DeliveryRecord & {
  threadId: string | null;
  dedupe: string;
  body: string;
  nextAt: number;
  claimedUntil: number;
};

/** Webhooks and deliveries in this process: each method whole and synchronous, so claims never overlap. */
export class MemoryNotificationStore implements NotificationStore {
  private webhooks = new Map<string, WebhookRecord>();
  private deliveries = new Map<string, Row>();

  constructor(
    private readonly hasProject: (projectId: string) => boolean,
    state: MemoryState,
  ) {
    state.threadParts.push((threadId) => {
      for (const d of this.deliveries.values()) if (d.threadId === threadId) this.deliveries.delete(d.id);
    });
    state.projectParts.push((projectId) => {
      // A Map may lose entries while it is iterated.
      for (const w of this.webhooks.values()) if (w.projectId === projectId) this.drop(w.id);
    });
  }

  private drop(webhookId: string) {
    this.webhooks.delete(webhookId);
    for (const [id, d] of this.deliveries) if (d.webhookId === webhookId) this.deliveries.delete(id);
  }

  private claimed(row: Row): ClaimedDelivery {
    const w = this.webhooks.get(row.webhookId)!;
    return { id: row.id, url: w.url, secret: w.secret, body: row.body, attempts: row.attempts };
  }

  async createWebhook(webhook: WebhookRecord) {
    if (!this.hasProject(webhook.projectId)) return false;
    this.webhooks.set(webhook.id, structuredClone(webhook));
    return true;
  }

  async listWebhooks(projectId: string) {
    return [...this.webhooks.values()]
      .filter((w) => w.projectId === projectId)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      .map((w) => structuredClone(w));
  }

  async deleteWebhook(projectId: string, id: string) {
    if (this.webhooks.get(id)?.projectId !== projectId) return false;
    this.drop(id);
    return true;
  }

  async enqueue(n: NotificationInput) {
    let count = 0;
    for (const w of this.webhooks.values()) {
      if (w.projectId !== n.projectId || !w.events.includes(n.event)) continue;
      const same = [...this.deliveries.values()].find((d) => d.webhookId === w.id && d.dedupe === n.dedupe);
      if (same) {
        if (same.attempts > 0 || same.status !== 'pending') continue;
        same.body = n.body;
      } else this.add(w.id, n.event, n.dedupe, n.body, n.at, n.notBefore).threadId = n.threadId;
      count++;
    }
    return count;
  }

  private add(
    webhookId: string,
    event: Row['event'],
    dedupe: string,
    body: string,
    at: number,
    nextAt: number,
  ) {
    const row: Row = {
      id: randomId('whd'),
      webhookId,
      event,
      status: 'pending',
      attempts: 0,
      createdAt: at,
      lastAt: null,
      lastCode: null,
      lastError: null,
      threadId: null,
      dedupe,
      body,
      nextAt,
      claimedUntil: 0,
    };
    this.deliveries.set(row.id, row);
    return row;
  }

  async enqueueTest(projectId: string, webhookId: string, body: string, now: number, claimMs: number) {
    if (this.webhooks.get(webhookId)?.projectId !== projectId) return undefined;
    const row = this.add(webhookId, 'test', randomId('test'), body, now, now);
    row.claimedUntil = now + claimMs;
    return this.claimed(row);
  }

  async claimDeliveries(now: number, claimMs: number, limit: number) {
    const due = [...this.deliveries.values()]
      .filter((d) => d.status === 'pending' && d.nextAt <= now && d.claimedUntil <= now)
      .sort((a, b) => a.nextAt - b.nextAt)
      .slice(0, limit);
    for (const d of due) d.claimedUntil = now + claimMs;
    return due.map((d) => this.claimed(d));
  }

  async withdraw(projectId: string, dedupe: string, now: number) {
    let count = 0;
    for (const [id, d] of this.deliveries)
      if (
        d.dedupe === dedupe &&
        d.status === 'pending' &&
        d.attempts === 0 &&
        d.claimedUntil <= now &&
        this.webhooks.get(d.webhookId)?.projectId === projectId
      ) {
        this.deliveries.delete(id);
        count++;
      }
    return count;
  }

  async recordAttempt(id: string, a: DeliveryAttempt) {
    const d = this.deliveries.get(id);
    if (!d) return;
    Object.assign(d, {
      attempts: d.attempts + 1,
      lastAt: a.at,
      lastCode: a.code,
      lastError: a.error,
      status: a.sent ? 'sent' : a.nextAt === null ? 'failed' : 'pending',
      nextAt: a.nextAt ?? d.nextAt,
      claimedUntil: 0,
    });
  }

  async listDeliveries(projectId: string, webhookId: string, limit: number) {
    if (this.webhooks.get(webhookId)?.projectId !== projectId) return [];
    return [...this.deliveries.values()]
      .filter((d) => d.webhookId === webhookId)
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
      .slice(0, limit)
      .map(({ threadId: _t, dedupe: _d, body: _b, nextAt: _n, claimedUntil: _c, ...record }) => record);
  }

  async purgeDeliveries(before: number) {
    let count = 0;
    for (const [id, d] of this.deliveries)
      if (d.createdAt < before && d.status !== 'pending') {
        this.deliveries.delete(id);
        count++;
      }
    return count;
  }
}
