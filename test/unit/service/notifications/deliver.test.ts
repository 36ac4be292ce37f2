/**
 * Notifications end to end: the console adds a webhook, a visitor's handoff, downvote or a
 * failed answer writes a delivery, the duty sends it to a receiver on this machine (node:http on
 * a random port), signed, retried on a 500, never following a redirect, timing out a slow one.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_RETENTION_MS } from '../../../../service/duties.js';
import { MAX_ATTEMPTS, RETRY_WAITS_MS, webhookSecret } from '../../../../service/notifications/deliver.js';
import { DOWNVOTE_WAIT_MS } from '../../../../service/routes/notify.js';
import type { ResolvedAddress } from '../../../../service/kernel/addresses.js';
import type { AgentServiceOptions, Stores } from '../../../../service/index.js';
import type { WebhookRecord } from '../../../../service/storage/types.js';
import { withConsole } from '../../../fixtures/console.js';
import { AGENT, PROJECT, chatRecords } from '../../../fixtures/service.js';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver whose answers the test scripts: a status, a redirect, or a delay. */
async function receiver(script: { status?: number; location?: string; delayMs?: number }[] = []) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      });
      const step = script.shift() ?? {};
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(step.status ?? 200, step.location ? { Location: step.location } : {});
        response.end(step.status && step.status >= 400 ? 'no_service: the hook is gone' : 'ok');
      }, step.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  let connections = 0;
  server.on('connection', (socket) => {
    connections++;
    closers.push(async () => void socket.destroy());
  });
  return { url, port, received, connections: () => connections };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The verification docs/service.md gives a receiver, as a receiver would write it. */
function verify(secret: string, headers: IncomingHttpHeaders, body: string, now = Date.now()): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(now / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => {
      const given = Buffer.from(s.slice(3), 'base64');
      return s.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

async function stored(storage: Stores, url: string, events: string[]) {
  const record = {
    id: 'wh_stored',
    projectId: PROJECT.id,
    url,
    events: events as WebhookRecord['events'],
    secret: webhookSecret(),
    createdAt: 0,
  };
  expect(await storage.notifications.createWebhook(record)).toBe(true);
  return { status: 201, body: record };
}

/** The receivers run on this machine: the service's operator allows its own network (decision 627). */
async function setUp(
  url: string,
  events = ['handoff', 'downvote', 'answer_failed'],
  { storedAs, ...options }: Partial<AgentServiceOptions> & { storedAs?: boolean } = {},
) {
  const made = await withConsole({ notificationTimeoutMs: 300, allowPrivateWebhooks: true, ...options });
  // storedAs: written as a service with the setting on had stored it, past the console's check.
  const created = storedAs
    ? await stored(made.service.storage, url, events)
    : await made.admin.call('POST', `projects/${PROJECT.id}/webhooks`, { url, events });
  expect(created.status).toBe(201);
  const token = await made.session('alice');
  const { records } = await chatRecords(made, token, { message: 'How do I reset my password?' });
  const threadId = records[0].content.thread_id as string;
  const answerId = records[0].content.question_answer_id as string;
  const handoff = () => made.call('POST', `${AGENT}/handoff/`, { token, body: { thread_id: threadId } });
  const deliveries = async () =>
    (await made.admin.call('GET', `projects/${PROJECT.id}/webhooks`)).body.webhooks[0].deliveries;
  return { ...made, webhook: created.body, token, threadId, answerId, handoff, deliveries };
}

describe('webhook deliveries', () => {
  it('a handoff reaches the receiver once, signed as documented, with the text chat tools show and the fields programs read', async () => {
    const hook = await receiver();
    const ctx = await setUp(`${hook.url}/hook`);
    expect((await ctx.handoff()).status).toBe(204);
    expect((await ctx.handoff()).status).toBe(204);
    expect(await ctx.service.deliverNotifications()).toBe(1);
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(hook.received).toHaveLength(1);
    const [got] = hook.received;
    expect(got.headers['content-type']).toBe('application/json');
    expect(verify(ctx.webhook.secret, got.headers, got.body, ctx.clock.now())).toBe(true);
    expect(
      verify(ctx.webhook.secret, got.headers, got.body.replace('password', 'passw0rd'), ctx.clock.now()),
    ).toBe(false);
    // A replay an hour later is refused by its timestamp.
    expect(verify(ctx.webhook.secret, got.headers, got.body, ctx.clock.now() + 3_600_000)).toBe(false);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      event: 'handoff',
      project_id: PROJECT.id,
      thread_id: ctx.threadId,
      at: new Date(ctx.clock.now()).toISOString(),
      url: `https://agent.test/console/conversations?project=${PROJECT.id}&thread=${ctx.threadId}`,
      question: 'How do I reset my password?',
      allowed_mentions: { parse: [] },
    });
    expect(body.text).toBe(body.content);
    expect(body.text).toContain('A visitor asked for a person');
    expect(body.text).toContain('“How do I reset my password?”');
    expect(body.answer.length).toBeGreaterThan(0);
    // Owners stay opaque.
    expect(got.body).not.toContain('alice');
    expect(await ctx.deliveries()).toEqual([
      expect.objectContaining({
        event: 'handoff',
        status: 'sent',
        attempts: 1,
        status_code: 200,
        error: null,
      }),
    ]);
    // The maintenance forgets a delivery a month after it was made, once it is over.
    ctx.clock.advance(DELIVERY_RETENTION_MS - 1);
    expect((await ctx.service.maintain()).deliveries).toBe(0);
    ctx.clock.advance(1);
    expect((await ctx.service.maintain()).deliveries).toBe(0);
    ctx.clock.advance(1);
    expect((await ctx.service.maintain()).deliveries).toBe(1);
  });

  it('a 500 is tried again after the first wait and recorded; a 4xx gives up; a webhook stops after five attempts', async () => {
    const hook = await receiver([{ status: 500 }, { status: 200 }]);
    const ctx = await setUp(`${hook.url}/hook`);
    await ctx.handoff();
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(await ctx.deliveries()).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        status_code: 500,
        error: 'no_service: the hook is gone',
      }),
    ]);
    ctx.clock.advance(RETRY_WAITS_MS[0] - 1);
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(hook.received).toHaveLength(1);
    ctx.clock.advance(1);
    expect(await ctx.service.deliverNotifications()).toBe(1);
    expect(hook.received).toHaveLength(2);
    // Each attempt is signed anew, with the same id (a receiver can drop a duplicate).
    expect(hook.received[1].headers['webhook-id']).toBe(hook.received[0].headers['webhook-id']);
    expect(await ctx.deliveries()).toEqual([
      expect.objectContaining({ status: 'sent', attempts: 2, status_code: 200, error: null }),
    ]);

    const down = await receiver(Array.from({ length: 9 }, () => ({ status: 503 })));
    const failing = await setUp(`${down.url}/hook`);
    await failing.handoff();
    for (const wait of [0, ...RETRY_WAITS_MS, 3 * 3_600_000]) {
      failing.clock.advance(wait);
      await failing.service.deliverNotifications();
    }
    expect(down.received).toHaveLength(MAX_ATTEMPTS);
    expect(await failing.deliveries()).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 5, status_code: 503 }),
    ]);

    const gone = await receiver([{ status: 404 }]);
    const missing = await setUp(`${gone.url}/hook`);
    await missing.handoff();
    await missing.service.deliverNotifications();
    missing.clock.advance(3 * 3_600_000);
    await missing.service.deliverNotifications();
    expect(gone.received).toHaveLength(1);
    expect(await missing.deliveries()).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 1, status_code: 404 }),
    ]);
  });

  it('a redirect is not followed; a slow receiver times out and is tried again later', async () => {
    const hook = await receiver([{ status: 302, location: '/elsewhere' }]);
    const ctx = await setUp(`${hook.url}/hook`);
    await ctx.handoff();
    await ctx.service.deliverNotifications();
    expect(hook.received.map((r) => r.path)).toEqual(['/hook']);
    expect(await ctx.deliveries()).toEqual([
      expect.objectContaining({
        status: 'failed',
        status_code: 302,
        error: expect.stringContaining('redirect'),
      }),
    ]);

    const slow = await receiver([{ delayMs: 2_000 }]);
    const late = await setUp(`${slow.url}/hook`);
    await late.handoff();
    const started = performance.now();
    expect(await late.service.deliverNotifications()).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(await late.deliveries()).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        status_code: null,
        error: 'No answer within 0.3 s.',
      }),
    ]);
  });

  it("a downvote waits a minute for the visitor's reasons and words, then sends them once", async () => {
    const hook = await receiver();
    const ctx = await setUp(`${hook.url}/hook`, ['downvote']);
    const vote = (comment: unknown) =>
      ctx.call('POST', `${AGENT}/feedback/`, {
        token: ctx.token,
        body: { question_answer_id: ctx.answerId, reaction: 'downvote', comment },
      });
    expect((await vote(null)).status).toBe(204);
    expect(await ctx.service.deliverNotifications()).toBe(0);
    await vote({
      incorrect: true,
      unaddressed: true,
      issue: 'It says <!channel> @everyone nothing about SSO',
    });
    // A handoff is not what this webhook asked for.
    await ctx.handoff();
    ctx.clock.advance(DOWNVOTE_WAIT_MS);
    expect(await ctx.service.deliverNotifications()).toBe(1);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].method).toBe('POST');
    const body = JSON.parse(hook.received[0].body);
    expect(body).toMatchObject({
      event: 'downvote',
      answer_id: ctx.answerId,
      reasons: ['incorrect', 'unaddressed'],
      comment: 'It says <!channel> @everyone nothing about SSO',
      question: 'How do I reset my password?',
    });
    // The line people read mentions no one and makes no link out of the visitor's words.
    expect(body.text).toContain('incorrect, unaddressed');
    expect(body.text).not.toContain('<!channel>');
    expect(body.text).not.toContain('@everyone');
  });

  it('a failed answer notifies with its stored failure code', async () => {
    const hook = await receiver();
    // An agent whose model server is down: its first output is an error.
    const failing = {
      answer: () => ({
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('model server down')) }),
      }),
    };
    const ctx = await setUp(`${hook.url}/hook`, ['answer_failed'], { agent: failing });
    await vi.waitFor(async () => expect(await ctx.service.deliverNotifications()).toBe(1));
    const body = JSON.parse(hook.received[0].body);
    expect(body).toMatchObject({ event: 'answer_failed', thread_id: ctx.threadId, answer_id: ctx.answerId });
    expect(body.failure_code).toMatch(/^[a-z_]+$/);
    expect(body.text).toContain(`An answer failed (`);
    // The words the console shows for it, not only a code the channel's reader must look up.
    const stored = (await ctx.service.storage.conversations.getThread(ctx.threadId))!.messages.find(
      (m) => m.id === ctx.answerId,
    )!.failure!;
    expect(stored.message.length).toBeGreaterThan(0);
    expect(body.failure_message).toBe(stored.message);
    expect(body.text.split('\n')[0]).toMatch(/^An answer failed \(.+\): /);
    expect(body.text.split('\n')[0].endsWith(`): ${stored.message}`)).toBe(true);
  });

  it('a 👎 changed to 👍 within its minute sends nothing; one that still stands after it is sent', async () => {
    const hook = await receiver();
    const ctx = await setUp(`${hook.url}/hook`, ['downvote']);
    const vote = (reaction: string) =>
      ctx.call('POST', `${AGENT}/feedback/`, {
        token: ctx.token,
        body: { question_answer_id: ctx.answerId, reaction, comment: null },
      });
    expect((await vote('downvote')).status).toBe(204);
    ctx.clock.advance(DOWNVOTE_WAIT_MS - 1_000);
    expect((await vote('upvote')).status).toBe(204);
    ctx.clock.advance(10 * DOWNVOTE_WAIT_MS);
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(hook.received).toHaveLength(0);
    expect(await ctx.deliveries()).toEqual([]);

    // Down again: a new minute, and this time it stands.
    await vote('downvote');
    ctx.clock.advance(DOWNVOTE_WAIT_MS);
    expect(await ctx.service.deliverNotifications()).toBe(1);
    // An upvote after it went changes nothing already sent.
    await vote('upvote');
    expect(await ctx.deliveries()).toEqual([expect.objectContaining({ event: 'downvote', status: 'sent' })]);
    expect(hook.received).toHaveLength(1);
  });
});

describe('webhook deliveries and the service’s own network (decision 626)', () => {
  /** A resolver that answers each question for a name with the next of `answers` (the last one repeats). */
  function rebinding(answers: string[][]) {
    const asked: string[] = [];
    const resolve = async (host: string): Promise<ResolvedAddress[]> => {
      asked.push(host);
      const next = answers.length > 1 ? answers.shift()! : answers[0];
      return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return { resolve, asked };
  }

  it('a name public when added and private when sent (DNS rebinding) is refused, recorded with the reason, never retried', async () => {
    const hook = await receiver();
    const dns = rebinding([['93.184.215.14'], ['127.0.0.1']]);
    const ctx = await setUp(`https://hooks.rebind.test:${hook.port}/hook`, ['handoff'], {
      allowPrivateWebhooks: false,
      webhookResolve: dns.resolve,
    });
    await ctx.handoff();
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(hook.connections()).toBe(0);
    const [delivery] = await ctx.deliveries();
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, status_code: null });
    expect(delivery.error).toBe(
      'hooks.rebind.test resolves to 127.0.0.1, not a public address (loopback): webhooks reach the service’s own network only when its operator starts it with --allow-private-webhooks (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1).',
    );
    ctx.clock.advance(3 * 3_600_000);
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(dns.asked).toEqual(['hooks.rebind.test', 'hooks.rebind.test']);
    expect(hook.connections()).toBe(0);
  });

  it('the request connects to the address the check resolved, not to a second answer', async () => {
    const hook = await receiver();
    // Checked once per attempt: the first answer is the receiver, a second would be elsewhere.
    const dns = rebinding([['127.0.0.1'], ['127.0.0.1'], ['10.9.9.9']]);
    const ctx = await setUp(`http://receiver.lan.test:${hook.port}/hook`, ['handoff'], {
      webhookResolve: dns.resolve,
    });
    await ctx.handoff();
    expect(await ctx.service.deliverNotifications()).toBe(1);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].headers.host).toBe(`receiver.lan.test:${hook.port}`);
    expect(dns.asked).toEqual(['receiver.lan.test', 'receiver.lan.test']);
  });

  it('a webhook stored while the setting was on is refused at its next attempt once it is off', async () => {
    const hook = await receiver();
    const ctx = await setUp(`${hook.url}/hook`, ['handoff'], { allowPrivateWebhooks: false, storedAs: true });
    await ctx.handoff();
    expect(await ctx.service.deliverNotifications()).toBe(0);
    expect(hook.connections()).toBe(0);
    expect(await ctx.deliveries()).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: expect.stringMatching(/^127\.0\.0\.1 is not a public address \(loopback\)/),
      }),
    ]);
  });
});
