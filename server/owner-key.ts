const encoder = new TextEncoder();

/**
 * The `Agent-Chat-Owner-Key` of wire contract §2: an HMAC-SHA-256 of the owner id, base64url.
 * Stable per owner, and reveals nothing about who it is without the secret. A page can render
 * the same value into the widget's `owner-key` attribute; `-` stands for "no owner".
 */
export async function ownerKey(ownerId: string | null | undefined, secret: string): Promise<string> {
  if (!ownerId) return '-';
  if (!secret) throw new TypeError('[agent-chat] ownerKey needs a non-empty secret.');
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(ownerId)));
  let binary = '';
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
