/** Random secrets and their digests, with web crypto only (the core also runs in a browser). */

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** `bytes` random bytes as base64url (32 bytes: 43 characters, 256 bits). */
export const randomSecret = (bytes = 32) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

/** Hex SHA-256: for high-entropy secrets (API keys, cookies), which need no slow hash. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** base64url HMAC-SHA-256 of `message` under `secret`, with no key kept (for secrets used once, unlike owner keys). */
export async function hmacOnce(secret: string, message: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message))));
}

/** Compares two strings in time that depends on their length only. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
