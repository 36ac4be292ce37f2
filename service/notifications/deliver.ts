/**
 * Sending notifications (decisions 614, 616, 626): each delivery signed the Standard Webhooks
 * way, POSTed once per attempt with a timeout to the addresses checked for that attempt (one
 * refused is recorded and never tried again), redirects not followed, a few hundred bytes of the
 * answer kept for the console; a failed attempt is tried again after a growing wait, five
 * attempts in all over about an hour.
 */
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../kernel/clock.js';
import type { ClaimedDelivery, DeliveryAttempt, NotificationStore } from '../storage/types.js';
import { bounded } from '../kernel/addresses.js';
import { type WebhookNetwork, WebhookAddressError, checkedAddresses } from './address.js';

/** Waits before the 2nd to the 5th attempt: 1, 5, 15 and 40 minutes (an hour and a minute in all). */
export const RETRY_WAITS_MS = [60_000, 300_000, 900_000, 2_400_000];
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer, and what of it the console shows. */
const READ_BYTES = 2_048;
const SHOWN_CHARS = 200;
/** Deliveries one instance sends per round. */
const BATCH = 20;

/**
 * `https:` or `http:` with no credentials; undefined when neither. Where it points is checked
 * apart (address.ts): at adding, and at each attempt on the addresses connected to.
 */
export function webhookUrl(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export function webhookSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

/** `v1,` and the base64 HMAC-SHA256, keyed by the secret's bytes, of `id.timestamp.body`. */
export async function signature(secret: string, id: string, timestamp: number, body: string) {
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

/** The first bytes of a receiver's answer as one line (Slack says `no_text`, `invalid_token`…). */
async function firstWords(response: IncomingMessage): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk.subarray(0, READ_BYTES - size), { stream: true });
      size += chunk.length;
      if (size >= READ_BYTES) break;
    }
  } finally {
    response.destroy();
  }
  return text
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim()
    .slice(0, SHOWN_CHARS);
}

/** A status that another attempt may change: the receiver timed out, was busy or failed. */
const retryable = (code: number) => code === 408 || code === 429 || code >= 500;

export interface SendOptions {
  timeoutMs: number;
  /** Where webhooks may point and how names resolve (decision 626). */
  network: WebhookNetwork;
}

type Result = { code: number | null; error: string | null; sent: boolean; retry: boolean };

/** Why the attempt got no answer, and whether another one may: a refused address never gets one. */
function unanswered(error: unknown, url: URL, signal: AbortSignal, timeoutMs: number): Result {
  if (error instanceof WebhookAddressError)
    return { code: null, error: error.message, sent: false, retry: false };
  const code = (error as { code?: unknown } | null)?.code;
  const words = signal.aborted
    ? `No answer within ${timeoutMs / 1000} s.`
    : code === 'ENOTFOUND'
      ? `${url.hostname} does not resolve.`
      : 'The receiver could not be reached.';
  return { code: null, error: words, sent: false, retry: true };
}

/** One attempt: its status code or the error, and whether it was delivered or may be tried again. */
export async function sendOnce(
  delivery: ClaimedDelivery,
  now: number,
  { timeoutMs, network }: SendOptions,
): Promise<Result> {
  const url = webhookUrl(delivery.url);
  if (!url) return { code: null, error: 'The address is not http(s).', sent: false, retry: false };
  const timestamp = Math.floor(now / 1000);
  const signal = AbortSignal.timeout(timeoutMs);
  let response: IncomingMessage;
  try {
    const addresses = await bounded(checkedAddresses(url, network), signal);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'agent-chat-service webhooks',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signature(delivery.secret, delivery.id, timestamp, delivery.body),
    };
    // Node's transport, loaded at the first attempt (the core also runs where Node is not).
    const { pinnedPost } = await import('../kernel/node-network.js');
    response = await pinnedPost(url, headers, delivery.body, addresses, signal);
  } catch (error) {
    return unanswered(error, url, signal, timeoutMs);
  }
  const words = await firstWords(response).catch(() => '');
  const code = response.statusCode ?? 0;
  if (code >= 200 && code < 300) return { code, error: null, sent: true, retry: false };
  if (code >= 300 && code < 400)
    return {
      code,
      error: 'A redirect, not followed: give the address it points to.',
      sent: false,
      retry: false,
    };
  return { code, error: words || null, sent: false, retry: retryable(code) };
}

/** The attempt as stored: another one after the next wait while attempts are left and it may help. */
function attemptRecord(
  delivery: ClaimedDelivery,
  result: Awaited<ReturnType<typeof sendOnce>>,
  at: number,
): DeliveryAttempt {
  const attempt = delivery.attempts + 1;
  const again = result.retry && attempt < MAX_ATTEMPTS;
  return {
    at,
    code: result.code,
    error: result.error,
    sent: result.sent,
    nextAt: again ? at + RETRY_WAITS_MS[attempt - 1] : null,
  };
}

/**
 * The duty: claims the deliveries that are due (no other instance sends them meanwhile), sends
 * them at once and records each attempt; returns how many were delivered.
 */
export async function deliverNotifications(
  store: NotificationStore,
  clock: Clock,
  options: SendOptions,
): Promise<number> {
  // The claim outlasts the request: another instance takes the delivery only when this one died.
  const claimed = await store.claimDeliveries(clock.now(), options.timeoutMs + 30_000, BATCH);
  const results = await Promise.all(claimed.map((d) => deliverOne(store, d, clock, options)));
  return results.filter(Boolean).length;
}

/** Sends one claimed delivery and records the attempt; true when it was delivered. */
export async function deliverOne(
  store: NotificationStore,
  delivery: ClaimedDelivery,
  clock: Clock,
  options: SendOptions,
  { final = false } = {},
): Promise<boolean> {
  const result = await sendOnce(delivery, clock.now(), options);
  const record = attemptRecord(delivery, final ? { ...result, retry: false } : result, clock.now());
  await store.recordAttempt(delivery.id, record);
  return result.sent;
}
