import type { SqlClient } from '../sql-client.js';

/**
 * Fleet signals sealed with a key kept in the database (AES-GCM, 256 bits). Anyone who can
 * connect may LISTEN and NOTIFY on any channel, whatever table rights it has: without the key
 * (in `fleet_secret`, which only a role that could read the answers themselves can read) a
 * notification reads as noise and a forged one is dropped before it is parsed.
 */

/** A sealed payload: `~` then base64 of the 12-byte nonce, the ciphertext and its 16-byte tag. */
const SEALED = '~';
/** NOTIFY stops at 8,000 bytes: a sealed payload never reaches that. */
const MAX_SEALED_CHARS = 7_990;

/** The fleet's key: made by the first instance of a database, read by every other. */
export async function fleetKey(db: SqlClient): Promise<CryptoKey> {
  const fresh = crypto.getRandomValues(new Uint8Array(32));
  await db.query('INSERT INTO fleet_secret (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
    toBase64(fresh),
  ]);
  // A statement of its own: it sees the row whichever instance won.
  const { rows } = await db.query('SELECT key FROM fleet_secret WHERE id = 1');
  const raw = fromBase64(String(rows[0].key));
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

export async function seal(key: CryptoKey, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return SEALED + toBase64(out);
}

/** The text a payload seals; undefined for anything not sealed with this key (never throws). */
export async function unseal(key: CryptoKey, payload: string): Promise<string | undefined> {
  if (payload[0] !== SEALED || payload.length > MAX_SEALED_CHARS) return undefined;
  try {
    const bytes = fromBase64(payload.slice(1));
    if (bytes.length < 12 + 16) return undefined;
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, 12) },
      key,
      bytes.subarray(12),
    );
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    return undefined;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
