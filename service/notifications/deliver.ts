/**
 * Sending notifications (decisions 614, 616): each delivery signed the Standard Webhooks way,
 * POSTed once per attempt with a timeout, redirects not followed, a few hundred bytes of the
 * answer kept for the console; a failed attempt is tried again after a growing wait, five
 * attempts in all over about an hour.
 */
import type { Clock } from '../kernel/clock.js';
import type { ClaimedDelivery, DeliveryAttempt, NotificationStore } from '../storage/types.js';

/** Waits before the 2nd to the 5th attempt: 1, 5, 15 and 40 minutes (an hour and a minute in all). */
export const RETRY_WAITS_MS = [60_000, 300_000, 900_000, 2_400_000];
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer, and what of it the console shows. */
const READ_BYTES = 2_048;
const SHOWN_CHARS = 200;
/** Deliveries one instance sends per round. */
const BATCH = 20;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `https:`, or `http:` to this machine (a receiver for local testing); undefined when neither. */
export function webhookUrl(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return url;
  return undefined;
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
async function firstWords(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    while (size < READ_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value.subarray(0, READ_BYTES - size), { stream: true });
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
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
  fetch?: typeof fetch;
}

/** One attempt: its status code or the error, and whether it was delivered or may be tried again. */
export async function sendOnce(
  delivery: ClaimedDelivery,
  now: number,
  { timeoutMs, fetch: send = fetch }: SendOptions,
): Promise<{ code: number | null; error: string | null; sent: boolean; retry: boolean }> {
  const url = webhookUrl(delivery.url);
  if (!url) return { code: null, error: 'The address is not https.', sent: false, retry: false };
  const timestamp = Math.floor(now / 1000);
  let response: Response;
  try {
    response = await send(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'agent-chat-service webhooks',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signature(delivery.secret, delivery.id, timestamp, delivery.body),
      },
      body: delivery.body,
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      code: null,
      error: timedOut ? `No answer within ${timeoutMs / 1000} s.` : 'The receiver could not be reached.',
      sent: false,
      retry: true,
    };
  }
  const words = await firstWords(response).catch(() => '');
  const code = response.status;
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
export function attemptRecord(
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
