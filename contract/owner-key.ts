import { NO_OWNER } from './paths.js';

const encoder = new TextEncoder();
/** One imported key per secret (a handful per process), not one per call. */
const keys = new Map<string, Promise<CryptoKey>>();

/**
 * The owner key of docs/protocol.md §2 (version 3 fixes the formula, so the service, the
 * session helper and a page compute the same value):
 * `base64url(HMAC-SHA-256(secret, "agent-chat owner\n" + ownerId))`, no padding, 43 characters;
 * `-` for no owner. Stable per owner, and it reveals nothing about who it is without the secret.
 */
export async function ownerKey(ownerId: string | null | undefined, secret: string): Promise<string> {
  if (!ownerId) return NO_OWNER;
  if (!secret) throw new TypeError('[agent-chat] ownerKey needs a non-empty secret.');
  return hmacBase64url(secret, `agent-chat owner\n${ownerId}`);
}

/** `base64url(HMAC-SHA-256(secret, message))` without padding: the owner key, and keys the service derives. */
export async function hmacBase64url(secret: string, message: string): Promise<string> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    // Bounded: a process holds a few project secrets, but never let the cache grow without end.
    if (keys.size >= 64) keys.clear();
    keys.set(secret, key);
  }
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(message)));
  let binary = '';
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
