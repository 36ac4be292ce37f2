const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

type NodeCrypto = {
  createHash(algorithm: string): { update(data: string): { digest(encoding: 'hex'): string } };
};
/** Node's hash is synchronous and several times cheaper than a Web Crypto job; elsewhere Web Crypto. */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

/**
 * SHA-256 of a session token, hex: what the store keeps and looks sessions up by. A token is
 * 128 random bits, so a plain hash is enough (nothing to guess), and one read from the
 * database (or a backup) authenticates nothing.
 */
export async function hashToken(token: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(token).digest('hex');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
