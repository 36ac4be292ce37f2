/**
 * A crawl seen across a fleet (decision 435): two service instances on one database, each with
 * its console and its docs library. The one holding the crawl lease crawls; the other's console
 * shows how far it has got, then its run. On PostgreSQL each instance has its own pool; in memory
 * the instances share one store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentService,
  DocsLibrary,
  ManualClock,
  memoryStores,
  type AgentService,
  type Stores,
} from '../../../../service/index.js';
import { openStorage } from '../../../../service/storage/open.js';
import { addAdmin, CONSOLE, consoleClient } from '../../../fixtures/console.js';
import { heldSite, type HeldSite } from '../../../fixtures/held-site.js';
import { PROJECT } from '../../../fixtures/service.js';
import { freshPostgresSchema } from '../../../fixtures/storages.js';

const fleets: { name: string; stores(): Promise<Stores[]> }[] = [
  { name: 'memory (one process)', stores: async () => Array(2).fill(memoryStores()) },
];
if (process.env.DATABASE_URL)
  fleets.push({
    name: 'postgresql',
    async stores() {
      const databaseUrl = await freshPostgresSchema();
      return Promise.all([openStorage({ databaseUrl }), openStorage({ databaseUrl })]);
    },
  });

describe.each(fleets)('a crawl across a fleet of two on $name', { timeout: 30_000 }, (fleet) => {
  let services: AgentService[] = [];
  let site: HeldSite | undefined;
  afterEach(async () => {
    await site?.close();
    await Promise.all(services.map((s) => s.close()));
    services = [];
  });

  /** Two instances, each with its docs library and console; an admin signed in to each console. */
  async function start() {
    const clock = new ManualClock();
    const stores = await fleet.stores();
    const libraries = stores.map(
      (storage) =>
        new DocsLibrary({
          store: storage.docs,
          clock,
          network: { allowPrivate: true },
          crawl: { retryDelayMs: 1 },
        }),
    );
    services = stores.map((storage, i) =>
      createAgentService({
        projects: [PROJECT],
        clock,
        rateLimit: false,
        storage,
        docs: libraries[i],
        console: CONSOLE,
      }),
    );
    await addAdmin(stores[0]);
    const consoles = services.map((service) => consoleClient(service));
    for (const admin of consoles) expect((await admin.signIn()).status).toBe(200);
    return { clock, libraries, consoles, path: `projects/${PROJECT.id}/docs/sources` };
  }

  it('the instance not crawling serves how far the other has got, then the run that replaces it', async () => {
    const { clock, libraries, consoles, path } = await start();
    const [crawling, other] = consoles;

    site = await heldSite({ pages: 40 });
    // Added through the first instance, which starts crawling it at once and holds the lease.
    const added = await crawling.call('POST', path, { location: site.start });
    expect(added.status).toBe(201);
    const crawl = async () => (await other.call('GET', path)).body.sources[0].crawl;
    await expect.poll(async () => (await crawl())?.pages_read, { timeout: 15_000 }).toBe(41);
    clock.advance(12_000);
    expect(await crawl()).toEqual({
      phase: 'pages',
      pages_read: 41,
      pages_failed: 0,
      started_at: expect.any(String),
      elapsed_ms: 12_000,
      quiet_ms: 12_000,
    });
    // The other instance does not crawl it too.
    expect(await libraries[1].tick()).toBe(0);

    site.release();
    await expect
      .poll(async () => (await other.call('GET', path)).body.sources[0].last_run?.pages_new)
      .toBe(42);
    expect(await crawl()).toBeNull();
  });

  it('a crawl under way on an instance that drains is not lost: its lease goes, and the other crawls the source', async () => {
    const { libraries, consoles, path } = await start();
    const [draining, other] = consoles;
    site = await heldSite({ pages: 5 });
    expect((await draining.call('POST', path, { location: site.start })).status).toBe(201);
    const source = async () => (await other.call('GET', path)).body.sources[0];
    await expect.poll(async () => (await source()).crawl?.pages_read, { timeout: 15_000 }).toBe(6);
    // The other instance cannot take it while the draining one holds the lease.
    expect(await libraries[1].tick()).toBe(0);

    expect(await services[0].drain(1_000)).toMatchObject({ answers: 0, left: 0 });
    expect(await source()).toMatchObject({ crawl: null, last_run: null });
    expect(await libraries[0].tick()).toBe(0);
    site.release();
    expect(await libraries[1].tick()).toBe(1);
    expect((await source()).last_run).toMatchObject({ pages_new: 7 });
  });
});
