import { describe, expect, it } from 'vitest';
import { memoryStores, createAgentService } from '../../../../service/index.js';
import { CONSOLE } from '../../../fixtures/console.js';
import { AGENT, PROJECT } from '../../../fixtures/service.js';

describe('start-up projects', () => {
  it('are written once, whatever the number of instances and restarts; a revoked start-up key stays revoked', async () => {
    const storage = memoryStores();
    const seed = { ...PROJECT, allowedOrigins: ['https://docs.example.com'] };
    const first = createAgentService({ projects: [seed], storage, console: CONSOLE });
    const second = createAgentService({ projects: [seed], storage, console: CONSOLE });
    const mint = (service: typeof first) =>
      service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': PROJECT.apiKey } }),
      );
    expect((await mint(first)).status).toBe(200);
    expect((await mint(second)).status).toBe(200);
    expect(await storage.directory.listProjects()).toHaveLength(1);
    expect(
      (await storage.directory.listIntegrations(PROJECT.id)).map((i) => [i.id, i.allowedOrigins]),
    ).toEqual(PROJECT.integrationIds.map((id) => [id, ['https://docs.example.com']]));
    expect(await storage.directory.listApiKeys(PROJECT.id)).toHaveLength(1);

    const [key] = await storage.directory.listApiKeys(PROJECT.id);
    await storage.directory.updateApiKey(PROJECT.id, key.id, { revokedAt: Date.now() });
    const restarted = createAgentService({
      projects: [{ ...seed, allowedOrigins: ['https://www.example.com'] }],
      storage,
      console: CONSOLE,
    });
    expect((await mint(restarted)).status).toBe(401);
    expect((await storage.directory.listIntegrations(PROJECT.id))[0].allowedOrigins).toEqual([
      'https://www.example.com',
    ]);
    const audit = (await storage.accounts.listAudit({ limit: 20 })).map((e) => `${e.actor} ${e.action}`);
    expect(audit.filter((a) => a === 'start-up project.create')).toHaveLength(1);
    expect(audit).toContain('start-up integration.update');
  });
});
