import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../../contract/owner-key.js';
import { OWNER_KEY_HEADER } from '../../../../contract/paths.js';
import { ManualClock, memoryStores, createAgentService } from '../../../../service/index.js';
import { CONSOLE, addAdmin, consoleClient, withConsole } from '../../../fixtures/console.js';
import { AGENT, PROJECT } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';

describe('console API keys', () => {
  it('a created key mints sessions (owner key under that key) until it is revoked; the list never shows a key', async () => {
    const { admin, mint, service } = await withConsole();
    const created = await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Production' });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^ack_[\w-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'Production',
      prefix: key.slice(0, 12),
      status: 'active',
      last_used_at: null,
    });
    expect((await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Production' })).status).toBe(
      409,
    );

    const minted = await mint(key);
    expect(minted.status).toBe(200);
    expect(minted.headers.get(OWNER_KEY_HEADER)).toBe(await ownerKey('alice', key));
    expect((await mint(PROJECT.apiKey)).headers.get(OWNER_KEY_HEADER)).toBe(
      await ownerKey('alice', PROJECT.apiKey),
    );

    const listed = await admin.call('GET', `projects/${PROJECT.id}/keys`);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(12));
    expect(
      listed.body.keys.find((k: { name: string }) => k.name === 'Production').last_used_at,
    ).not.toBeNull();
    expect(
      (await service.storage.directory.listApiKeys(PROJECT.id)).every((k) => !Object.values(k).includes(key)),
    ).toBe(true);

    const id = created.body.id as string;
    expect((await admin.call('DELETE', `projects/${PROJECT.id}/keys/${id}`)).body.status).toBe('revoked');
    const refused = await mint(key);
    expect(refused.status).toBe(401);
    expect((await mint(PROJECT.apiKey)).status).toBe(200);
  });

  it('rotation: the old key works for the chosen overlap and then stops; the new one works throughout', async () => {
    const { admin, mint, clock } = await withConsole();
    const old = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Web' })).body;
    expect(
      (await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, { overlap_seconds: -1 }))
        .status,
    ).toBe(400);
    const rotated = await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, {
      overlap_seconds: 3600,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      name: 'Web',
      status: 'active',
      replaced: { id: old.id, name: 'Web (rotated)', status: 'expiring' },
    });
    const fresh = rotated.body.key as string;
    expect(fresh).not.toBe(old.key);
    expect((await mint(old.key)).status).toBe(200);
    expect((await mint(fresh)).headers.get(OWNER_KEY_HEADER)).toBe(await ownerKey('alice', fresh));

    clock.advance(3599_000);
    expect((await mint(old.key)).status).toBe(200);
    clock.advance(1_000);
    expect((await mint(old.key)).status).toBe(401);
    expect((await mint(fresh)).status).toBe(200);
    const listed = (await admin.call('GET', `projects/${PROJECT.id}/keys`)).body.keys;
    expect(listed.map((k: { name: string; status: string }) => `${k.name}:${k.status}`).sort()).toEqual([
      'Start-up key:active',
      'Web (rotated):expired',
      'Web:active',
    ]);
    expect(
      (await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, { overlap_seconds: 0 }))
        .status,
    ).toBe(400);
  });

  it('a revoke reaches another instance on the same store at once, not when its directory cache expires', async () => {
    const clock = new ManualClock();
    const storage = memoryStores();
    const options = { projects: [PROJECT], storage, clock, rateLimit: false as const, console: CONSOLE };
    const a = createAgentService(options);
    const b = createAgentService(options);
    await addAdmin(storage);
    const admin = consoleClient(a);
    await admin.signIn();
    const created = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Shared' })).body;
    const mintOn = (service: typeof a) =>
      service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': created.key } }),
      );
    // b had never seen the key: a miss re-reads the store, so a new key works on every instance at once.
    expect((await mintOn(b)).status).toBe(200);
    // b holds the project with the key live now, for 5 s of a clock that does not move here.
    expect((await mintOn(b)).status).toBe(200);
    await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}`);
    expect((await mintOn(a)).status).toBe(401);
    expect((await mintOn(b)).status).toBe(401);
  });
});

describe.each(engines())('revoke and end its sessions on $name', { timeout: 30_000 }, (engine) => {
  it("ends the sessions the key minted, on every instance of the store, and leaves other keys' sessions alone", async () => {
    const clock = new ManualClock();
    const storage = await engine.open();
    const options = { projects: [PROJECT], storage, clock, rateLimit: false as const, console: CONSOLE };
    const a = createAgentService(options);
    // One store for both instances: a closes it, b only itself.
    const b = createAgentService({ ...options, storage: { ...storage, close: async () => {} } });
    try {
      await addAdmin(storage);
      const admin = consoleClient(a);
      await admin.signIn();
      const created = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Leaked' })).body;
      const mintWith = async (apiKey: string) => {
        const response = await a.handle(
          new Request(`${AGENT}/sessions/`, {
            method: 'POST',
            headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
            body: JSON.stringify({ external_owner_id: 'alice' }),
          }),
        );
        return ((await response.json()) as { session_token: string }).session_token;
      };
      const threadsOn = (service: typeof a, token: string) =>
        service.handle(new Request(`${AGENT}/threads/`, { headers: { Authorization: `Bearer ${token}` } }));
      const leaked = await mintWith(created.key);
      const other = await mintWith(PROJECT.apiKey);
      // Both instances have seen (and cached) the leaked key's session.
      expect((await threadsOn(a, leaked)).status).toBe(200);
      expect((await threadsOn(b, leaked)).status).toBe(200);

      // A plain revoke leaves the sessions running until they expire.
      const revoked = await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}`);
      expect(revoked.body).toMatchObject({ status: 'revoked', sessions_ended_at: null });
      expect((await threadsOn(a, leaked)).status).toBe(200);

      // Ending them later (the key is already revoked) stops them at once here, on b within its cache time.
      const ended = await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}?end_sessions=1`);
      expect(ended.status).toBe(200);
      expect(ended.body.status).toBe('revoked');
      expect(ended.body.sessions_ended_at).not.toBeNull();
      expect((await threadsOn(a, leaked)).status).toBe(401);
      clock.advance(5_000);
      expect((await threadsOn(b, leaked)).status).toBe(401);
      expect((await threadsOn(a, other)).status).toBe(200);
      expect((await threadsOn(b, other)).status).toBe(200);

      const audit = await storage.accounts.listAudit({ limit: 10 });
      expect(audit.map((entry) => entry.action)).toEqual(
        expect.arrayContaining(['key.revoke', 'key.end_sessions']),
      );
    } finally {
      await b.close();
      await a.close();
    }
  });
});
