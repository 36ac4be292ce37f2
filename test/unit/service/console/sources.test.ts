/** The console's Sources API: a project's documentation, reached only through its project. */
import { cp, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { serveFolder } from '../../../../scripts/static-site.mjs';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';
import { withConsole } from '../../../fixtures/console.js';
import { PROJECT } from '../../../fixtures/service.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const FOLDER = join(SITE, 'docs');
const OTHER = { id: 'proj_other', apiKey: 'key_other', integrationIds: ['int_other'] };
const docsPath = (projectId: string, rest = '') => `projects/${projectId}/docs/${rest}`;

/** A console over two projects and one library; the fixture folder copied, so a test may change it. */
async function sourcesConsole() {
  const folder = await mkdtemp(join(tmpdir(), 'docs-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  await cp(FOLDER, folder, { recursive: true });
  const storage = memoryStores();
  const clock = new ManualClock();
  const docs = new DocsLibrary({
    store: storage.docs,
    clock,
    readFolder: readDocsFolder,
    freshnessMs: 0,
    network: { allowPrivate: true },
    crawl: { retryDelayMs: 1 },
  });
  const made = await withConsole({ storage, clock, docs, projects: [PROJECT, OTHER] });
  onTestFinished(() => made.service.close());
  return { ...made, clock, docs, folder };
}

describe('console Sources', () => {
  it('adds a folder, lists what it holds, searches it with scores, re-crawls and removes it, each change audited', async () => {
    const { admin, docs, folder } = await sourcesConsole();
    const added = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: folder,
      public_url: 'https://acme.example/docs',
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      location: folder,
      kind: 'folder',
      public_url: 'https://acme.example/docs',
    });
    await docs.tick();
    const listed = await admin.call('GET', docsPath(PROJECT.id, 'sources'));
    expect(listed.body.enabled).toBe(true);
    expect(listed.body.sources).toHaveLength(1);
    expect(listed.body.sources[0]).toMatchObject({
      id: added.body.id,
      pages: 8,
      last_crawl_at: expect.any(String),
      last_run: { pages_new: 8, complete: true, failure_count: 0 },
    });

    const search = await admin.call(
      'GET',
      `${docsPath(PROJECT.id, 'search')}?q=${encodeURIComponent('what is max_locks_per_transaction')}`,
    );
    expect(search.status).toBe(200);
    expect(search.body.hits[0]).toMatchObject({
      title: 'Configuration',
      headings: ['Locks', 'max_locks_per_transaction (integer)'],
      url: 'https://acme.example/docs/reference/config.html#max_locks_per_transaction',
      score: expect.any(Number),
      match: expect.any(Number),
    });
    expect((await admin.call('GET', docsPath(PROJECT.id, 'search'))).status).toBe(400);

    const crawl = await admin.call('POST', docsPath(PROJECT.id, `sources/${added.body.id}/crawl`), {});
    expect(crawl).toMatchObject({ status: 202, body: { scheduled: true } });
    expect((await admin.call('DELETE', docsPath(PROJECT.id, `sources/${added.body.id}`))).status).toBe(204);
    expect((await admin.call('DELETE', docsPath(PROJECT.id, `sources/${added.body.id}`))).status).toBe(404);
    expect((await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources).toEqual([]);
    const audit = (await admin.call('GET', 'audit')).body.entries.map(
      (e: { action: string; project_id: string }) => [e.action, e.project_id],
    );
    expect(audit).toEqual(
      expect.arrayContaining([
        ['docs.add', PROJECT.id],
        ['docs.crawl', PROJECT.id],
        ['docs.remove', PROJECT.id],
      ]),
    );
  });

  it('crawls a website: its pages, its failures with their reasons, and "Re-crawl now" revalidates', async () => {
    const { admin, docs, clock } = await sourcesConsole();
    const site = await serveFolder(SITE, {
      routes: { '/docs/broken.html': (_req, res) => res.writeHead(500).end('down') },
    });
    onTestFinished(() => site.close());
    const added = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: `${site.url}/docs/`,
    });
    expect(added).toMatchObject({ status: 201, body: { kind: 'site', public_url: null } });
    // The same address again is the same source, not a second crawl of the site.
    const again = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: `${site.url}/docs/`,
    });
    expect(again.body.id).toBe(added.body.id);
    await docs.tick();

    const [first] = (await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources;
    expect(first.pages).toBeGreaterThan(3);
    expect(first.last_run).toMatchObject({ complete: true, pages_new: first.pages, pages_unchanged: 0 });
    expect(first.last_run.failures).toEqual(
      expect.arrayContaining([
        // With the page that links each, to fix the link there (decision 707).
        {
          url: `${site.url}/docs/broken.html`,
          reason: 'the server answered 500',
          from: { url: `${site.url}/docs/`, by: 'link' },
        },
        {
          url: `${site.url}/docs/missing.html`,
          reason: 'not found (404)',
          from: { url: `${site.url}/docs/`, by: 'link' },
        },
      ]),
    );
    expect(first.last_run.failure_count).toBe(first.last_run.failures.length);
    expect(Date.parse(first.next_crawl_at)).toBeGreaterThan(Date.parse(first.last_crawl_at));

    clock.advance(60_000);
    const crawl = await admin.call('POST', docsPath(PROJECT.id, `sources/${added.body.id}/crawl`), {});
    expect(crawl.status).toBe(202);
    await docs.tick();
    const [second] = (await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources;
    expect(Date.parse(second.last_crawl_at)).toBeGreaterThan(Date.parse(first.last_crawl_at));
    // The fixture's sitemap gives no lastmod: nothing spared for it, no lie kept (decision 785).
    expect(second.last_run).toMatchObject({
      pages_new: 0,
      pages_changed: 0,
      pages_unchanged: first.pages,
      pages_spared: 0,
      lastmod_lie_at: null,
    });
    expect(second.pages).toBe(first.pages);
  });

  it('keeps the paths an operator excludes, counts what a crawl skipped, and crawls again when they change', async () => {
    const { admin, docs, clock } = await sourcesConsole();
    const site = await serveFolder(SITE);
    onTestFinished(() => site.close());
    const added = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: `${site.url}/docs/`,
      exclude: ['/docs/guide/', '*.md'],
    });
    expect(added).toMatchObject({ status: 201, body: { exclude: ['/docs/guide/', '*.md'] } });
    await docs.tick();
    const listed = async () => (await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources[0];
    const first = await listed();
    expect(first).toMatchObject({ exclude: ['/docs/guide/', '*.md'], pages: 3 });
    // The fixture's robots.txt keeps its private page out: counted apart from the excluded ones.
    expect(first.last_run).toMatchObject({ pages_excluded: 4, pages_disallowed: 1, complete: true });
    expect(site.requests.map((r) => r.path)).not.toContain('/docs/guide/install.html');

    clock.advance(60_000);
    const changed = await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), {
      exclude: ['/docs/notes.md'],
    });
    expect(changed).toMatchObject({ status: 200, body: { id: added.body.id, exclude: ['/docs/notes.md'] } });
    expect(Date.parse(changed.body.next_crawl_at)).toBe(clock.now());
    await docs.tick();
    const second = await listed();
    // guide/install.html and linked-only.html come in (alias.html is a copy of install.html).
    expect(second.last_run).toMatchObject({ pages_excluded: 1, pages_disallowed: 1, pages_new: 2 });
    expect(second.pages).toBe(5);

    // Bad patterns: a 400 naming the one at fault, nothing changed.
    const bad = await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), {
      exclude: ['/ok/', 'releases/'],
    });
    expect(bad).toMatchObject({
      status: 400,
      body: {
        detail: 'The exclude pattern "releases/" must start with / or * (a path on the site, like /blog/).',
      },
    });
    const many = Array.from({ length: 51 }, (_, i) => `/p${i}/`);
    expect(
      await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), { exclude: many }),
    ).toMatchObject({ status: 400, body: { detail: 'At most 50 exclude patterns (51 given).' } });
    expect(
      await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), { exclude: '/blog/' }),
    ).toMatchObject({ status: 400 });
    // The change is its exclude: a body without one is refused, not read as "exclude nothing".
    expect(await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), {})).toMatchObject({
      status: 400,
      body: { detail: 'exclude is a list of path patterns, like ["/blog/"].' },
    });
    expect(
      await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
        location: `${site.url}/docs/reference/`,
        exclude: ['/docs/'],
      }),
    ).toMatchObject({
      status: 400,
      body: { detail: `${site.url}/docs/reference/ is itself excluded by /docs/: nothing would be crawled.` },
    });
    expect((await listed()).exclude).toEqual(['/docs/notes.md']);
    expect(
      (await admin.call('PATCH', docsPath(OTHER.id, `sources/${added.body.id}`), { exclude: [] })).status,
    ).toBe(404);
    const audit = (await admin.call('GET', 'audit')).body.entries.filter(
      (e: { action: string }) => e.action === 'docs.exclude',
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ project_id: PROJECT.id, detail: { exclude: ['/docs/notes.md'] } });
  });

  it('suggests keeping out a folder of release notes, and suggests it no more once it is excluded', async () => {
    const { admin, docs } = await sourcesConsole();
    const root = await mkdtemp(join(tmpdir(), 'site-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const page = (title: string, links = '') =>
      `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>${links}</main></body></html>`;
    const releases = ['1.0', '1.1', '2.0'];
    await mkdir(join(root, 'releases'));
    await writeFile(
      join(root, 'index.html'),
      page(
        'Acme',
        [...releases.map((v) => `releases/${v}.html`), 'install.html']
          .map((h) => `<a href="${h}">${h}</a> `)
          .join(''),
      ),
    );
    await writeFile(join(root, 'install.html'), page('Install'));
    for (const v of releases)
      await writeFile(join(root, 'releases', `${v}.html`), page(`Acme ${v} release notes`));
    const site = await serveFolder(root);
    onTestFinished(() => site.close());
    const added = await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: `${site.url}/` });
    await docs.tick();
    const listed = async () => (await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources[0];
    const pageLists = vi.spyOn(docs.store, 'listDocPages');
    expect(await listed()).toMatchObject({
      pages: 5,
      suggested_exclusions: [{ pattern: '/releases/', kind: 'release notes', pages: 3 }],
    });
    // The page looks again while nothing was crawled: the pages are not listed again.
    expect((await listed()).suggested_exclusions).toHaveLength(1);
    expect(pageLists).toHaveBeenCalledTimes(1);
    // Taken, it is offered no more, before the crawl that drops the pages too.
    const taken = await admin.call('PATCH', docsPath(PROJECT.id, `sources/${added.body.id}`), {
      exclude: ['/releases/'],
    });
    expect(taken.body).toMatchObject({ pages: 5, exclude: ['/releases/'], suggested_exclusions: [] });
    await docs.tick();
    expect(await listed()).toMatchObject({ pages: 2, exclude: ['/releases/'], suggested_exclusions: [] });
  });

  it("keeps the project's synonyms, searches with them at once, refuses bad ones in plain words, audited", async () => {
    const { admin, docs, folder } = await sourcesConsole();
    await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: folder });
    await docs.tick();
    const first = async (projectId: string, q: string) =>
      (await admin.call('GET', `${docsPath(projectId, 'search')}?q=${encodeURIComponent(q)}`)).body.hits[0]
        ?.url as string | undefined;
    const question = 'everything is stuck forever';
    expect(await first(PROJECT.id, question)).toBeUndefined();

    const put = await admin.call('PUT', docsPath(PROJECT.id, 'synonyms'), {
      synonyms: [
        [' stuck ', 'waits for a lock', 'stuck'],
        ['upgrade', 'migration'],
      ],
    });
    expect(put).toMatchObject({
      status: 200,
      body: {
        synonyms: [
          ['stuck', 'waits for a lock'],
          ['upgrade', 'migration'],
        ],
      },
    });
    expect(await first(PROJECT.id, question)).toMatch(/config\.html#lock_timeout$/);
    const searched = await admin.call(
      'GET',
      `${docsPath(PROJECT.id, 'search')}?q=${encodeURIComponent(question)}`,
    );
    expect(searched.body.also).toEqual(['waits for a lock']);
    expect((await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.synonyms).toEqual([
      ['stuck', 'waits for a lock'],
      ['upgrade', 'migration'],
    ]);
    // Another project has its own (none), and its search is not changed.
    expect((await admin.call('GET', docsPath(OTHER.id, 'sources'))).body.synonyms).toEqual([]);

    const bad = await admin.call('PUT', docsPath(PROJECT.id, 'synonyms'), { synonyms: [['stuck']] });
    expect(bad).toMatchObject({
      status: 400,
      body: { detail: 'The synonym group "stuck" needs at least two words or phrases.' },
    });
    expect(
      await admin.call('PUT', docsPath(PROJECT.id, 'synonyms'), { synonyms: 'stuck, waits' }),
    ).toMatchObject({ status: 400 });
    expect((await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.synonyms).toHaveLength(2);

    expect(await admin.call('PUT', docsPath(PROJECT.id, 'synonyms'), { synonyms: [] })).toMatchObject({
      status: 200,
      body: { synonyms: [] },
    });
    expect(await first(PROJECT.id, question)).toBeUndefined();
    const audit = (await admin.call('GET', 'audit')).body.entries.filter(
      (e: { action: string }) => e.action === 'docs.synonyms',
    );
    expect(audit.map((e: { detail: unknown }) => e.detail)).toEqual([{ groups: 0 }, { groups: 2 }]);
  });

  it('searches with excerpts a page can show, and refuses an empty or overlong question', async () => {
    const { admin, docs, folder } = await sourcesConsole();
    await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: folder });
    await docs.tick();
    const search = (q: string) =>
      admin.call('GET', `${docsPath(PROJECT.id, 'search')}?q=${encodeURIComponent(q)}`);
    const { body } = await search('install Acme database memory');
    expect(body.hits.length).toBeGreaterThan(0);
    expect(body.hits.length).toBeLessThanOrEqual(10);
    for (const hit of body.hits) expect(hit.excerpt.length).toBeLessThanOrEqual(281);
    expect(body.hits.map((h: { score: number }) => h.score)).toEqual(
      body.hits.map((h: { score: number }) => h.score).sort((a: number, b: number) => b - a),
    );
    expect(await search('   ')).toMatchObject({ status: 400 });
    expect(await search('why '.repeat(600))).toMatchObject({
      status: 400,
      body: { detail: 'q is longer than 2,000 characters.' },
    });
  });

  it('searches a follow-up after the question before it (earlier), as its chat did, and says whether it took its words', async () => {
    const { admin, docs, folder } = await sourcesConsole();
    await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: folder });
    await docs.tick();
    const search = (q: string, earlier?: string) =>
      admin.call(
        'GET',
        `${docsPath(PROJECT.id, 'search')}?${new URLSearchParams(earlier === undefined ? { q } : { q, earlier })}`,
      );
    const first = (body: { hits: { url: string }[] }) => body.hits[0]?.url;
    const alone = await search('when should I raise it?');
    const followUp = await search('when should I raise it?', 'what is max_locks_per_transaction');
    expect(followUp.body.earlier).toBe('what is max_locks_per_transaction');
    expect(first(followUp.body)).toMatch(/#max_locks_per_transaction$/);
    expect(followUp.body.hits).not.toEqual(alone.body.hits);
    expect(alone.body.earlier).toBeNull();
    // A question that does not refer back is searched alone, and says so.
    const own = await search('install Acme database memory', 'what is lock_timeout');
    expect(own.body).toMatchObject({
      earlier: null,
      hits: (await search('install Acme database memory')).body.hits,
    });
  });

  it('carries the crawl under way: how long it has run and since it last got further, by the service clock, until it goes stale', async () => {
    const { admin, docs, clock, folder } = await sourcesConsole();
    const added = await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: folder });
    await docs.tick();
    const crawl = async () =>
      (await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources[0].crawl;
    expect(await crawl()).toBeNull();
    // As another instance crawling it writes it.
    await docs.store.putDocCrawlProgress({
      sourceId: added.body.id,
      phase: 'pages',
      pagesRead: 340,
      pagesFailed: 2,
      startedAt: clock.now() - 30_000,
      updatedAt: clock.now() - 5_000,
    });
    expect(await crawl()).toEqual({
      phase: 'pages',
      pages_read: 340,
      pages_failed: 2,
      started_at: new Date(clock.now() - 30_000).toISOString().replace('Z', '000Z'),
      elapsed_ms: 30_000,
      quiet_ms: 5_000,
    });
    // Not written for the lease's length (10 minutes): its instance died, and no crawl runs.
    clock.advance(10 * 60_000 - 5_000);
    expect((await crawl())?.quiet_ms).toBe(10 * 60_000);
    clock.advance(1);
    expect(await crawl()).toBeNull();
  });

  it('refuses what cannot be a source, in plain words, and needs an admin', async () => {
    const { admin, service } = await sourcesConsole();
    const refused = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: 'ftp://docs.example.com/',
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { detail: 'ftp://docs.example.com/: only http and https sites can be crawled.' },
    });
    expect((await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: '' })).status).toBe(400);
    expect((await admin.call('GET', docsPath('proj_nowhere', 'sources'))).status).toBe(404);
    const anonymous = await service.handle(
      new Request(`https://agent.example/console/api/${docsPath(PROJECT.id, 'sources')}`),
    );
    expect(anonymous.status).toBe(401);
  });

  it("keeps projects apart: another project's sources are not listed, searched, re-crawled or removed through it", async () => {
    const { admin, docs, folder } = await sourcesConsole();
    const { body: mine } = await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: folder });
    await docs.tick();
    expect((await admin.call('GET', docsPath(OTHER.id, 'sources'))).body.sources).toEqual([]);
    const search = await admin.call('GET', `${docsPath(OTHER.id, 'search')}?q=max_locks_per_transaction`);
    expect(search.body.hits).toEqual([]);
    expect((await admin.call('POST', docsPath(OTHER.id, `sources/${mine.id}/crawl`), {})).status).toBe(404);
    expect((await admin.call('DELETE', docsPath(OTHER.id, `sources/${mine.id}`))).status).toBe(404);
    expect((await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body.sources).toHaveLength(1);
    // The same folder in the other project is a source of its own.
    expect((await admin.call('POST', docsPath(OTHER.id, 'sources'), { location: folder })).status).toBe(201);
    const ids = async (projectId: string) =>
      (await admin.call('GET', docsPath(projectId, 'sources'))).body.sources.map((s: { id: string }) => s.id);
    expect(await ids(OTHER.id)).not.toEqual(await ids(PROJECT.id));
  });

  it('says when the service answers without a library', async () => {
    const { admin } = await withConsole();
    expect((await admin.call('GET', docsPath(PROJECT.id, 'sources'))).body).toEqual({
      enabled: false,
      sources: [],
      synonyms: [],
    });
    expect(
      (await admin.call('PUT', docsPath(PROJECT.id, 'synonyms'), { synonyms: [['a1', 'b1']] })).status,
    ).toBe(404);
    expect(
      (await admin.call('POST', docsPath(PROJECT.id, 'sources'), { location: 'https://docs.example/' }))
        .status,
    ).toBe(404);
  });

  it("flags an answer's sources whose page changed or left the site after it was written", async () => {
    const { admin, docs, folder, session, chat, clock } = await sourcesConsole();
    const { body: source } = await admin.call('POST', docsPath(PROJECT.id, 'sources'), {
      location: folder,
      public_url: 'https://acme.example/docs',
    });
    await docs.tick();
    const alice = await session('alice');
    const cited = async (question: string) => {
      const { threadId } = await chat(alice, question);
      const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).body;
      return thread.messages[1];
    };
    const config = await cited('what is max_locks_per_transaction');
    const install = await cited('Which database does Acme need? PostgreSQL requirements');
    expect(config.sources[0].source_url).toContain('/reference/config.html');
    expect(install.sources[0].source_url).toContain('/guide/install.html');
    expect([config.stale_sources, install.stale_sources]).toEqual([[], []]);
    // The list marks each row, and its filter finds them, without opening one (decision 738).
    const listed = async (query = '') =>
      (await admin.call('GET', `projects/${PROJECT.id}/conversations${query}`)).body.threads.map(
        (t: { stale_sources: boolean }) => t.stale_sources,
      );
    expect(await listed()).toEqual([false, false]);
    expect(await listed('?stale_sources=1')).toEqual([]);
    const counted = async () => (await admin.call('GET', docsPath(PROJECT.id, 'stale'))).body;
    expect(await counted()).toEqual({ conversations: 0, at_least: false });

    // The config page leaves the site; the install page is rewritten.
    clock.advance(60_000);
    await unlink(join(folder, 'reference/config.html'));
    await cp(join(folder, 'guide/linked-only.html'), join(folder, 'guide/install.html'));
    await admin.call('POST', docsPath(PROJECT.id, `sources/${source.id}/crawl`), {});
    await docs.tick();
    const reread = async (message: { id: string }) => {
      const threads = (await admin.call('GET', `projects/${PROJECT.id}/conversations`)).body.threads;
      for (const { id } of threads) {
        const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${id}`)).body;
        const found = thread.messages.find((m: { id: string }) => m.id === message.id);
        if (found) return found.stale_sources;
      }
      return null;
    };
    expect(await reread(config)).toEqual([{ source_url: config.sources[0].source_url, page: 'removed' }]);
    expect(await reread(install)).toEqual([{ source_url: install.sources[0].source_url, page: 'changed' }]);
    expect(await listed()).toEqual([true, true]);
    expect(await listed('?stale_sources=1')).toEqual([true, true]);
    expect(await counted()).toEqual({ conversations: 2, at_least: false });
    expect((await admin.call('GET', docsPath(OTHER.id, 'stale'))).body).toEqual({
      conversations: 0,
      at_least: false,
    });
    // The download carries them too, a line each with what became of the page.
    const { body: text } = await admin.call(
      'GET',
      `projects/${PROJECT.id}/conversations?format=csv&stale_sources=1`,
    );
    expect(text).toContain(`removed: ${config.sources[0].source_url}`);
    expect(text).toContain(`changed: ${install.sources[0].source_url}`);
  });
});
