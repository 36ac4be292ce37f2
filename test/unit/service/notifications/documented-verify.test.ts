/**
 * The verification docs/service.md gives a webhook's receiver, run as written: what a receiver
 * copies must refuse a forged, replayed or malformed delivery by returning false, never by
 * throwing (a receiver that throws answers 500, and the service tries again).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { signature, webhookSecret } from '../../../../service/notifications/deliver.js';

type Verify = (secret: string, headers: Record<string, string | undefined>, body: string) => boolean;
let verify: Verify;

beforeAll(async () => {
  const doc = readFileSync(new URL('../../../../docs/service.md', import.meta.url), 'utf8');
  const code = /\*\*Verifying a delivery\.\*\*[^]*?```js\n([^]*?)```/.exec(doc)?.[1];
  expect(code).toContain('export function verify');
  const file = join(mkdtempSync(join(tmpdir(), 'verify-')), 'verify.mjs');
  writeFileSync(file, code!);
  ({ verify } = (await import(pathToFileURL(file).href)) as { verify: Verify });
});

const body = '{"event":"test"}';

async function delivery(secret: string, at = Math.floor(Date.now() / 1000)) {
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(at),
    'webhook-signature': await signature(secret, 'msg_1', at, body),
  } as Record<string, string | undefined>;
}

describe('the documented webhook verification, as a receiver copies it', () => {
  it('accepts a delivery the service signed', async () => {
    const secret = webhookSecret();
    expect(verify(secret, await delivery(secret), body)).toBe(true);
  });

  it('refuses another body, another secret, and a delivery older than five minutes', async () => {
    const secret = webhookSecret();
    expect(verify(secret, await delivery(secret), `${body} `)).toBe(false);
    expect(verify(webhookSecret(), await delivery(secret), body)).toBe(false);
    expect(verify(secret, await delivery(secret, Math.floor(Date.now() / 1000) - 301), body)).toBe(false);
  });

  it('returns false, without throwing, for a signature of another length or headers left out', async () => {
    const secret = webhookSecret();
    const signed = await delivery(secret);
    expect(verify(secret, { ...signed, 'webhook-signature': 'v1,c2hvcnQ=' }, body)).toBe(false);
    expect(verify(secret, { ...signed, 'webhook-signature': undefined }, body)).toBe(false);
    expect(verify(secret, { ...signed, 'webhook-timestamp': undefined }, body)).toBe(false);
    expect(verify(secret, { ...signed, 'webhook-id': undefined }, body)).toBe(false);
  });
});
