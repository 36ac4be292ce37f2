import { randomId } from '../../kernel/ids.js';
import type { SqlClient } from '../sql-client.js';
import type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryRecord,
  NotificationInput,
  NotificationStore,
  WebhookRecord,
} from '../types.js';
import { json, num, numOrNull } from './rows.js';

const toWebhook = (r: Record<string, unknown>): WebhookRecord => ({
  id: r.id as string,
  projectId: r.project_id as string,
  url: r.url as string,
  events: r.events as WebhookRecord['events'],
  secret: r.secret as string,
  createdAt: num(r.created_at),
});

const toClaimed = (r: Record<string, unknown>): ClaimedDelivery => ({
  id: r.id as string,
  url: r.url as string,
  secret: r.secret as string,
  body: r.body as string,
  attempts: num(r.attempts),
});

const toDelivery = (r: Record<string, unknown>): DeliveryRecord => ({
  id: r.id as string,
  webhookId: r.webhook_id as string,
  event: r.event as DeliveryRecord['event'],
  status: r.status as DeliveryRecord['status'],
  attempts: num(r.attempts),
  createdAt: num(r.created_at),
  lastAt: numOrNull(r.last_at),
  lastCode: numOrNull(r.last_code),
  lastError: (r.last_error as string | null) ?? null,
});

/** Webhooks and their deliveries in SQL: each write one statement, each claim one conditional update. */
export class SqlNotificationStore implements NotificationStore {
  constructor(private readonly db: SqlClient) {}

  async createWebhook(w: WebhookRecord) {
    const { rowCount } = await this.db.query(
      `INSERT INTO webhooks (id, project_id, url, events, secret, created_at)
       SELECT $1, $2, $3, $4::jsonb, $5, $6 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $2)`,
      [w.id, w.projectId, w.url, json(w.events), w.secret, w.createdAt],
    );
    return rowCount > 0;
  }

  async listWebhooks(projectId: string) {
    const { rows } = await this.db.query(
      'SELECT * FROM webhooks WHERE project_id = $1 ORDER BY created_at, id',
      [projectId],
    );
    return rows.map(toWebhook);
  }

  async deleteWebhook(projectId: string, id: string) {
    const { rowCount } = await this.db.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
    ]);
    return rowCount > 0;
  }

  async enqueue(n: NotificationInput) {
    // Each delivery's id: the event's random id and the webhook's, hashed (one per pair).
    const { rowCount } = await this.db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, thread_id, event, dedupe, body, status, created_at, next_at)
       SELECT 'whd_' || md5($1 || w.id), w.id, $8, $3, $4, $5, 'pending', $6, $7
       FROM webhooks w WHERE w.project_id = $2 AND w.events @> jsonb_build_array($3::text)
       ON CONFLICT (webhook_id, dedupe) DO UPDATE SET body = excluded.body
         WHERE webhook_deliveries.attempts = 0 AND webhook_deliveries.status = 'pending'`,
      [randomId('evt'), n.projectId, n.event, n.dedupe, n.body, n.at, n.notBefore, n.threadId],
    );
    return rowCount;
  }

  async enqueueTest(projectId: string, webhookId: string, body: string, now: number, claimMs: number) {
    const { rows } = await this.db.query(
      `WITH added AS (
         INSERT INTO webhook_deliveries (id, webhook_id, event, dedupe, body, status, created_at, next_at, claimed_until)
         SELECT $1, w.id, 'test', $1, $3, 'pending', $4, $4, $5 FROM webhooks w WHERE w.project_id = $2 AND w.id = $6
         RETURNING id, webhook_id, body, attempts)
       SELECT a.*, w.url, w.secret FROM added a JOIN webhooks w ON w.id = a.webhook_id`,
      [randomId('whd'), projectId, body, now, now + claimMs, webhookId],
    );
    return rows.length ? toClaimed(rows[0]) : undefined;
  }

  async claimDeliveries(now: number, claimMs: number, limit: number) {
    // SKIP LOCKED: instances claiming together take different rows; the outer condition, checked
    // again on a row another claim changed meanwhile, keeps one claim per row either way.
    const { rows } = await this.db.query(
      `WITH claimed AS (
         UPDATE webhook_deliveries SET claimed_until = $2
         WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE status = 'pending' AND next_at <= $1 AND claimed_until <= $1
                      ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED)
           AND status = 'pending' AND claimed_until <= $1
         RETURNING id, webhook_id, body, attempts)
       SELECT c.*, w.url, w.secret FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`,
      [now, now + claimMs, limit],
    );
    return rows.map(toClaimed);
  }

  async withdraw(projectId: string, dedupe: string, now: number) {
    // A claimed one is being sent: it stays, and its attempt is recorded as it goes.
    const { rowCount } = await this.db.query(
      `DELETE FROM webhook_deliveries d USING webhooks w
       WHERE w.id = d.webhook_id AND w.project_id = $1 AND d.dedupe = $2
         AND d.status = 'pending' AND d.attempts = 0 AND d.claimed_until <= $3`,
      [projectId, dedupe, now],
    );
    return rowCount;
  }

  async recordAttempt(id: string, a: DeliveryAttempt) {
    await this.db.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_at = $2, last_code = $3, last_error = $4,
         status = $5, next_at = coalesce($6, next_at), claimed_until = 0
       WHERE id = $1`,
      [id, a.at, a.code, a.error, a.sent ? 'sent' : a.nextAt === null ? 'failed' : 'pending', a.nextAt],
    );
  }

  async listDeliveries(projectId: string, webhookId: string, limit: number) {
    const { rows } = await this.db.query(
      `SELECT d.* FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE w.project_id = $1 AND d.webhook_id = $2 ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
      [projectId, webhookId, limit],
    );
    return rows.map(toDelivery);
  }

  async purgeDeliveries(before: number) {
    const { rowCount } = await this.db.query(
      "DELETE FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending'",
      [before],
    );
    return rowCount;
  }
}
