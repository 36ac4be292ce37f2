/**
 * The project's webhooks on the console's Notifications page (decisions 612-617, 628): add one (its
 * signing secret shown once), list them with their recent deliveries, send a test, delete.
 */
import type {
  ConsoleNewWebhook,
  ConsoleWebhook,
  ConsoleWebhookDelivery,
  ConsoleWebhookList,
} from '../../../contract/console.js';
import { isRecord, readJsonBody } from '../../http/body.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { json, noContent } from '../../http/responses.js';
import { isoMicros, isoMicrosOrNull } from '../../kernel/clock.js';
import { randomId } from '../../kernel/ids.js';
import { addressRefusal } from '../../notifications/address.js';
import { deliverOne, webhookSecret, webhookUrl } from '../../notifications/deliver.js';
import { notificationBody } from '../../notifications/payload.js';
import {
  type DeliveryRecord,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type WebhookRecord,
} from '../../storage/types.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { audit, requireAdmin } from './auth.js';
import { adminProject } from './projects.js';

/** Webhooks and deliveries in the notifications; the project in the directory; admins and the audit in the accounts. */
type WebhooksContext = ServiceContext<'notifications' | 'directory' | 'accounts'>;

const MAX_WEBHOOKS = 10;
const MAX_URL_CHARS = 2_000;
/** Deliveries the list shows per webhook. */
const SHOWN_DELIVERIES = 10;
/** How long a test's receiver may take: the admin waits for it. */
const TEST_TIMEOUT_MS = 10_000;

/**
 * The address as the console and the audit log show it: origin and the path's first part.
 * Slack's, Discord's and Mattermost's addresses carry their secret in the path (decision 615).
 */
function shownUrl(value: string): string {
  const url = new URL(value);
  const first = url.pathname.split('/').filter(Boolean)[0];
  return `${url.origin}/${first ? `${first}/…` : ''}`;
}

const deliveryJson = (d: DeliveryRecord): ConsoleWebhookDelivery => ({
  id: d.id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  created_at: isoMicros(d.createdAt),
  last_attempt_at: isoMicrosOrNull(d.lastAt),
  status_code: d.lastCode,
  error: d.lastError,
});

async function webhookJson(ctx: WebhooksContext, w: WebhookRecord): Promise<ConsoleWebhook> {
  const deliveries = await ctx.storage.notifications.listDeliveries(w.projectId, w.id, SHOWN_DELIVERIES);
  return {
    id: w.id,
    url_shown: shownUrl(w.url),
    events: w.events,
    created_at: isoMicros(w.createdAt),
    deliveries: deliveries.map(deliveryJson),
  };
}

/**
 * The address and events asked for; an address the service may not reach is refused in words
 * before it is saved: what is wrong and which setting allows it (decision 628).
 */
async function parseInput(
  ctx: WebhooksContext,
  body: unknown,
): Promise<{ url: string; events: NotificationEvent[] }> {
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const given = typeof body.url === 'string' ? body.url.trim() : '';
  const url = given.length <= MAX_URL_CHARS ? webhookUrl(given) : undefined;
  if (!url)
    throw badRequest('The address must be an https:// URL without a user name, at most 2,000 characters.');
  const events = Array.isArray(body.events) ? body.events : [];
  if (!events.length || !events.every((e) => NOTIFICATION_EVENTS.includes(e as NotificationEvent)))
    throw badRequest(`events must name one or more of ${NOTIFICATION_EVENTS.join(', ')}.`);
  const refusal = await addressRefusal(url, ctx.webhooks);
  if (refusal) throw badRequest(`This address cannot be used: ${refusal}`);
  return { url: url.href, events: NOTIFICATION_EVENTS.filter((e) => events.includes(e)) };
}

export async function listWebhooks(
  ctx: WebhooksContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  await adminProject(ctx, request, projectId);
  const webhooks = await ctx.storage.notifications.listWebhooks(projectId);
  return json({
    webhooks: await Promise.all(webhooks.map((w) => webhookJson(ctx, w))),
    // The messages link the conversation only when the service knows its public URL (decision 704).
    conversation_links: ctx.publicUrl !== null,
  } satisfies ConsoleWebhookList);
}

export async function createWebhook(
  ctx: WebhooksContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin } = await adminProject(ctx, request, projectId);
  const { url, events } = await parseInput(ctx, await readJsonBody(request));
  if ((await ctx.storage.notifications.listWebhooks(projectId)).length >= MAX_WEBHOOKS)
    throw new HttpError(409, 'conflict', `A project has at most ${MAX_WEBHOOKS} webhooks.`);
  const record: WebhookRecord = {
    id: randomId('wh'),
    projectId,
    url,
    events,
    secret: webhookSecret(),
    createdAt: ctx.clock.now(),
  };
  if (!(await ctx.storage.notifications.createWebhook(record))) throw notFound('No such project.');
  await audit(ctx, info, admin.username, 'webhook.create', projectId, record.id, {
    url: shownUrl(url),
    events,
  });
  const created: ConsoleNewWebhook = { ...(await webhookJson(ctx, record)), secret: record.secret };
  return json(created, 201);
}

async function findWebhook(ctx: WebhooksContext, projectId: string, webhookId: string) {
  const found = (await ctx.storage.notifications.listWebhooks(projectId)).find((w) => w.id === webhookId);
  if (!found) throw notFound('No such webhook.');
  return found;
}

export async function deleteWebhook(
  ctx: WebhooksContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  webhookId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const found = await findWebhook(ctx, projectId, webhookId);
  if (!(await ctx.storage.notifications.deleteWebhook(projectId, webhookId)))
    throw notFound('No such webhook.');
  await audit(ctx, info, admin.username, 'webhook.delete', projectId, webhookId, {
    url: shownUrl(found.url),
  });
  return noContent();
}

/** POST …/test: a `test` delivery, sent now and once; the answer is that attempt. */
export async function testWebhook(
  ctx: WebhooksContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  webhookId: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const now = ctx.clock.now();
  const body = notificationBody({
    event: 'test',
    projectId,
    projectName: project.name,
    threadId: null,
    at: now,
    link: null,
  });
  const claimed = await ctx.storage.notifications.enqueueTest(
    projectId,
    webhookId,
    body,
    now,
    2 * TEST_TIMEOUT_MS,
  );
  if (!claimed) throw notFound('No such webhook.');
  await deliverOne(
    ctx.storage.notifications,
    claimed,
    ctx.clock,
    { timeoutMs: TEST_TIMEOUT_MS, network: ctx.webhooks },
    { final: true },
  );
  await audit(ctx, info, admin.username, 'webhook.test', projectId, webhookId);
  const [delivery] = (
    await ctx.storage.notifications.listDeliveries(projectId, webhookId, SHOWN_DELIVERIES)
  ).filter((d) => d.id === claimed.id);
  return json(deliveryJson(delivery));
}
