/**
 * A page pinned to a widget release keeps its chat after the service is upgraded (decision 741):
 * the release's files are kept in the store, so any instance of any later (or, during a rolling
 * upgrade, earlier) release serves them at their old URLs with the same bytes, on every engine.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentService,
  memoryStores,
  type AgentService,
  type WidgetRelease,
} from '../../../../service/index.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import type { LogEntry } from '../../../../service/kernel/log.js';
import { openDataDir, openStorage } from '../../../../service/storage/open.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import type { Stores } from '../../../../service/storage/types.js';
import { freshPostgresSchema, sqlEngines } from '../../../fixtures/storages.js';
import { widgetRelease } from '../../../fixtures/widget-release.js';

const BASE = 'https://agent.test';
const DAY = 86_400_000;

/** Two instances' stores on one database (or one process's memory): a fleet, or one service restarted. */
interface Engine {
  name: string;
  open(): Promise<[Stores, Stores]>;
}

function engines(): Engine[] {
  const postgresOnly = process.env.SERVICE_TEST_STORAGE === 'postgres';
  const list: Engine[] = [];
  if (!postgresOnly) {
    list.push({
      name: 'memory',
      open: async () => {
        const stores = memoryStores();
        return [stores, stores];
      },
    });
    const pglite = sqlEngines().find((e) => e.name === 'pglite')!;
    list.push({
      name: 'pglite',
      open: async () => {
        const db = await pglite.client();
        return [await openSqlStores(db), await openSqlStores(db)];
      },
    });
  }
  if (process.env.DATABASE_URL)
    list.push({
      name: 'postgresql',
      open: async () => {
        const url = await freshPostgresSchema();
        return [await openStorage({ databaseUrl: url }), await openStorage({ databaseUrl: url })];
      },
    });
  return list;
}

const get = (service: AgentService, path: string, init: RequestInit = {}) =>
  service.handle(new Request(`${BASE}${path}`, init));

const sha384 = (bytes: ArrayBuffer | Uint8Array) =>
  `sha384-${createHash('sha384')
    .update(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    .digest('base64')}`;

describe.each(engines())('pinned widget releases across upgrades: $name', { timeout: 30_000 }, (engine) => {
  const services: AgentService[] = [];
  afterEach(async () => {
    // Each store closed once, whichever instances shared it.
    await Promise.all([...new Set(services.map((s) => s.storage))].map((s) => s.close()));
    services.length = 0;
  });

  const clock = new ManualClock();
  const start = (storage: Stores, widget: WidgetRelease, log?: (entry: LogEntry) => void) => {
    const service = createAgentService({ storage, widget, clock, rateLimit: false, publicUrl: BASE, log });
    services.push(service);
    return service;
  };

  it('serves the release a page pinned, with the same bytes and headers, after the service moved to the next', async () => {
    const [before, after] = await engine.open();
    const old = widgetRelease('1.0.0', 'console.log("one");');
    const v1 = start(before, old);
    expect((await get(v1, '/widget/1.0.0/agent-chat.iife.js')).status).toBe(200);

    const v2 = start(after, widgetRelease('1.1.0', 'console.log("two");'));
    for (const name of Object.keys(old.sri)) {
      const response = await get(v2, `/widget/1.0.0/${name}`);
      expect(response.status, name).toBe(200);
      // The pinned tag's integrity hash holds: the very bytes the release had.
      expect(sha384(await response.arrayBuffer()), name).toBe(old.sri[name]);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'cache-control': 'public, max-age=31536000, immutable',
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
        'content-type': 'text/javascript; charset=utf-8',
      });
    }
    expect(await (await get(v2, '/widget/1.0.0/sri.json')).json()).toEqual(old.sri);
    const zipped = await get(v2, '/widget/1.0.0/agent-chat.iife.js', {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(zipped.headers.get('Content-Encoding')).toBe('gzip');
    expect(sha384(gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(
      old.sri['agent-chat.iife.js'],
    );
    // `latest` is the running release's; what no release holds is still 404.
    expect((await get(v2, '/widget/latest/agent-chat.iife.js')).headers.get('Location')).toBe(
      '../1.1.0/agent-chat.iife.js',
    );
    expect((await get(v2, '/widget/1.0.0/agent-chat.cjs')).status).toBe(404);
    expect((await get(v2, '/widget/0.9.0/agent-chat.iife.js')).status).toBe(404);
  });

  it('during a rolling upgrade, an instance of the release before serves the new release’s pages too', async () => {
    const [oldInstance, newInstance] = await engine.open();
    const v1 = start(oldInstance, widgetRelease('1.0.0', 'console.log("one");'));
    expect((await get(v1, '/widget/1.0.0/agent-chat.iife.js')).status).toBe(200);
    const next = widgetRelease('1.1.0', 'console.log("two");');
    // The new instance keeps its release as it starts its duties, before any request reaches it.
    const stop = start(newInstance, next).startDuties();
    await expect.poll(async () => (await get(v1, '/widget/1.1.0/agent-chat.iife.js')).status).toBe(200);
    stop();
    const response = await get(v1, '/widget/1.1.0/agent-chat.iife.js');
    expect(response.status).toBe(200);
    expect(sha384(await response.arrayBuffer())).toBe(next.sri['agent-chat.iife.js']);
  });

  it('an instance whose release the store holds already reads none of its files as it starts', async () => {
    const [first, second] = await engine.open();
    const reads: string[] = [];
    const counting = (release: WidgetRelease): WidgetRelease => ({
      ...release,
      file: (name) => (reads.push(name), release.file(name)),
    });
    const release = widgetRelease('1.0.0', 'console.log("one");');
    // A request other than the release's own files: what it reads is what keeping it reads.
    await get(start(first, counting(release)), '/widget/0.9.0/agent-chat.iife.js');
    expect(reads.sort()).toEqual([...Object.keys(release.sri), 'sri.json'].sort());
    reads.length = 0;
    await get(start(second, counting(release)), '/widget/0.9.0/agent-chat.iife.js');
    expect(reads).toEqual([]);
    // Two instances of a new release starting at once: one release stored, with its files.
    const next = widgetRelease('1.1.0', 'console.log("two");');
    await Promise.all([first, second].map((s) => get(start(s, counting(next)), '/widget/0.9.0/x.js')));
    const response = await get(start(first, release), '/widget/1.1.0/agent-chat.iife.js');
    expect(sha384(await response.arrayBuffer())).toBe(next.sri['agent-chat.iife.js']);
    expect((await first.widgets.listWidgetReleases()).map((r) => r.version).sort()).toEqual([
      '1.0.0',
      '1.1.0',
    ]);
  });

  it('a build with other bytes under a stored version replaces them, and warns that pinned pages break', async () => {
    const [first, second] = await engine.open();
    await get(
      start(first, widgetRelease('1.0.0', 'console.log("build a");')),
      '/widget/latest/agent-chat.iife.js',
    );
    const logs: LogEntry[] = [];
    const rebuilt = widgetRelease('1.0.0', 'console.log("build b");');
    await get(
      start(second, rebuilt, (entry) => logs.push(entry)),
      '/widget/latest/agent-chat.iife.js',
    );
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'widget_release_replaced', version: '1.0.0' }),
    );
    const upgraded = start(second, widgetRelease('2.0.0', 'console.log("two");'));
    const response = await get(upgraded, '/widget/1.0.0/agent-chat.iife.js');
    expect(sha384(await response.arrayBuffer())).toBe(rebuilt.sri['agent-chat.iife.js']);
  });

  it('drops a release no page loaded for 180 days, keeps one pages still load, and says which pages load', async () => {
    const [before, after] = await engine.open();
    await get(
      start(before, widgetRelease('1.0.0', 'console.log("one");')),
      '/widget/latest/agent-chat.iife.js',
    );
    await get(
      start(before, widgetRelease('1.1.0', 'console.log("one, one");')),
      '/widget/latest/agent-chat.iife.js',
    );
    const v2 = start(after, widgetRelease('2.0.0', 'console.log("two");'));
    const startedAt = clock.now();
    clock.advance(170 * DAY);
    // A page pinned to 1.1.0 still loads it; nobody loads 1.0.0.
    expect((await get(v2, '/widget/1.1.0/agent-chat.iife.js')).status).toBe(200);
    clock.advance(20 * DAY);
    await get(v2, '/widget/2.0.0/agent-chat.iife.js');
    expect((await v2.maintain()).widgetReleases).toBe(1);
    expect((await get(v2, '/widget/1.0.0/agent-chat.iife.js')).status).toBe(404);
    expect(await after.widgets.listWidgetReleases()).toEqual([
      expect.objectContaining({ version: '2.0.0', loadedAt: clock.now(), storedAt: startedAt + 170 * DAY }),
      expect.objectContaining({ version: '1.1.0', loadedAt: startedAt + 170 * DAY }),
    ]);
    expect((await get(v2, '/widget/1.1.0/agent-chat.iife.js')).status).toBe(200);
  });
});

// The embedded store only: PostgreSQL outlives its instances by itself (the suite above).
const onDisk = process.env.SERVICE_TEST_STORAGE === 'postgres' ? [] : [{ name: 'PGlite on disk' }];

describe.each(onDisk)('pinned widget releases across a restart: $name', { timeout: 30_000 }, () => {
  it('an embedded service stopped, then started on its data directory with the next release, serves the one before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'widget-releases-'));
    try {
      const old = widgetRelease('1.0.0', 'console.log("one");');
      const before = createAgentService({ storage: (await openDataDir(dir)).stores, widget: old });
      expect((await get(before, '/widget/1.0.0/agent-chat.iife.js')).status).toBe(200);
      await before.close();
      const after = createAgentService({
        storage: (await openDataDir(dir)).stores,
        widget: widgetRelease('1.1.0', 'console.log("two");'),
      });
      try {
        const response = await get(after, '/widget/1.0.0/agent-chat.iife.js');
        expect(response.status).toBe(200);
        expect(sha384(await response.arrayBuffer())).toBe(old.sri['agent-chat.iife.js']);
      } finally {
        await after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
