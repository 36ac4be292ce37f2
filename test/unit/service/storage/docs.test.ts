/** The documentation role on every engine: sources per project, crawls applied whole, each project's index version, the crawl lease. */
import { expect, it } from 'vitest';
import type { DocCrawl, Stores } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

const SITE = 'https://docs.test/';
const P = 'proj_a';
const source = (id: string, location = `${SITE}${id}/`, projectId = P) => ({
  id,
  projectId,
  location,
  kind: 'site' as const,
  publicUrl: null,
  exclude: [] as string[],
  createdAt: T0,
  lastCrawlAt: null,
  nextCrawlAt: T0,
});
const page = (path: string, status: 'new' | 'changed' | 'unchanged', text = `About ${path}.`) => ({
  url: `${SITE}a/${path}`,
  title: `Page ${path}`,
  etag: `"${path}-${text.length}"`,
  lastModified: null,
  hash: `${path}:${text}`,
  links: [`${SITE}a/other`],
  status,
  sections:
    status === 'unchanged'
      ? []
      : [
          { url: `${SITE}a/${path}`, pageUrl: `${SITE}a/${path}`, title: `Page ${path}`, headings: [], text },
          {
            url: `${SITE}a/${path}#more`,
            pageUrl: `${SITE}a/${path}`,
            title: `Page ${path}`,
            headings: ['More'],
            text: `${text} More.`,
          },
        ],
});
const crawl = (at: number, pages: DocCrawl['pages'], extra: Partial<DocCrawl> = {}): DocCrawl => ({
  sourceId: 'a',
  startedAt: at,
  finishedAt: at + 10,
  nextCrawlAt: at + 86_400_000,
  pages,
  complete: true,
  truncated: false,
  failures: [],
  ...extra,
});

storageSuite('docs', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('adds sources once per location, lists them with what they hold, and removes one with all it holds', async () => {
    await open();
    expect(await store.docs.addDocSource(source('a'))).toBe(true);
    expect(await store.docs.addDocSource({ ...source('b'), location: `${SITE}a/` })).toBe(false);
    expect(await store.docs.addDocSource(source('b'))).toBe(true);
    await store.docs.applyDocCrawl(
      crawl(T0, [page('one', 'new')], { failures: [{ url: `${SITE}a/gone`, reason: 'not found (404)' }] }),
    );
    const [a, b] = await store.docs.listDocSources(P);
    expect(a).toMatchObject({
      id: 'a',
      pages: 1,
      sections: 2,
      lastCrawlAt: T0 + 10,
      nextCrawlAt: T0 + 86_400_000,
    });
    expect(a.lastRun).toMatchObject({
      pagesNew: 1,
      complete: true,
      failures: [{ url: `${SITE}a/gone`, reason: 'not found (404)' }],
    });
    expect(b).toMatchObject({ id: 'b', pages: 0, sections: 0, lastRun: null });
    const version = await store.docs.docsVersion(P);
    expect(await store.docs.removeDocSource(P, 'a')).toBe(true);
    expect(await store.docs.removeDocSource(P, 'a')).toBe(false);
    expect(await store.docs.listDocSections(P)).toEqual([]);
    expect(await store.docs.listCrawlRuns('a', 5)).toEqual([]);
    expect(await store.docs.docsVersion(P)).toBeGreaterThan(version);
    expect((await store.docs.listDocSources(P)).map((s) => s.id)).toEqual(['b']);
  });

  it('applies a crawl of more pages than one statement writes or reads, a page held twice counted once', async () => {
    await open();
    // A source added later, crawled first: a project's sections still come source by source, oldest first.
    await store.docs.addDocSource({ ...source('z'), createdAt: T0 + 1 });
    await store.docs.applyDocCrawl({
      ...crawl(T0, []),
      sourceId: 'z',
      pages: [{ ...page('zz', 'new'), url: `${SITE}a/zz` }],
    });
    await store.docs.addDocSource(source('a'));
    const many = Array.from({ length: 600 }, (_, i) => page(`p${String(i).padStart(3, '0')}`, 'new'));
    const first = await store.docs.applyDocCrawl(crawl(T0, [...many, page('p007', 'new', 'Read again.')]));
    expect(first).toMatchObject({ pagesNew: 600, pagesChanged: 0 });
    const sections = await store.docs.listDocSections(P);
    expect(sections.map((s) => s.url.slice(SITE.length))).toEqual([
      ...many.flatMap((p) => [p.url.slice(SITE.length), `${p.url.slice(SITE.length)}#more`]),
      'a/zz',
      'a/zz#more',
    ]);
    expect(sections.filter((s) => s.pageUrl.endsWith('/p007')).map((s) => s.text)).toEqual([
      'Read again.',
      'Read again. More.',
    ]);
    // Half unchanged, half changed, in the same batches.
    const again = await store.docs.applyDocCrawl(
      crawl(
        T0 + 100,
        many.map((p, i) => (i % 2 ? { ...p, status: 'unchanged' as const, sections: [] } : p)),
      ),
    );
    expect(again).toMatchObject({ pagesChanged: 300, pagesUnchanged: 300, pagesRemoved: 0 });
    expect(await store.docs.listDocSections(P)).toHaveLength(1_202);
    expect((await store.docs.listDocPages('a')).length).toBe(600);
  });

  it('applies a crawl whole: new, changed, unchanged and removed pages, the run counted, the version moved only on change', async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    const v0 = await store.docs.docsVersion(P);
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new'), page('two', 'new')]));
    const v1 = await store.docs.docsVersion(P);
    expect(v1).toBeGreaterThan(v0);
    const sections = await store.docs.listDocSections(P);
    expect(sections.map((s) => [s.url.slice(SITE.length), s.headings, s.embedding])).toEqual([
      ['a/one', [], null],
      ['a/one#more', ['More'], null],
      ['a/two', [], null],
      ['a/two#more', ['More'], null],
    ]);

    // Nothing changed: the run says so, the sections and the version stay.
    const quiet = await store.docs.applyDocCrawl(
      crawl(T0 + 100, [page('one', 'unchanged'), page('two', 'unchanged')]),
    );
    expect(quiet).toMatchObject({ pagesNew: 0, pagesChanged: 0, pagesUnchanged: 2, pagesRemoved: 0 });
    expect(await store.docs.docsVersion(P)).toBe(v1);
    expect((await store.docs.listDocSections(P)).map((s) => s.id)).toEqual(sections.map((s) => s.id));

    // One changed, one gone: its sections go with it, its row says when it left.
    const run = await store.docs.applyDocCrawl(crawl(T0 + 200, [page('one', 'changed', 'Rewritten.')]));
    expect(run).toMatchObject({ pagesChanged: 1, pagesRemoved: 1 });
    expect((await store.docs.listDocSections(P)).map((s) => s.text)).toEqual([
      'Rewritten.',
      'Rewritten. More.',
    ]);
    expect(await store.docs.docsVersion(P)).toBeGreaterThan(v1);
    const pages = await store.docs.listDocPages('a');
    expect(pages.map((p) => [p.url.slice(SITE.length), p.etag, p.changedAt])).toEqual([
      ['a/one', '"one-10"', T0 + 210],
    ]);
    expect((await store.docs.listCrawlRuns('a', 2)).map((r) => r.startedAt)).toEqual([T0 + 200, T0 + 100]);
    expect(await store.docs.docPageChanges(P, [`${SITE}a/one`, `${SITE}a/two`, `${SITE}a/never`])).toEqual(
      new Map([
        [`${SITE}a/one`, { changedAt: T0 + 210, removedAt: null }],
        [`${SITE}a/two`, { changedAt: T0 + 10, removedAt: T0 + 210 }],
      ]),
    );
    expect((await store.docs.listDocSources(P))[0]).toMatchObject({ pages: 1, sections: 2 });

    // A page back on the site is new again, with its sections.
    const back = await store.docs.applyDocCrawl(
      crawl(T0 + 300, [page('one', 'unchanged'), page('two', 'new', 'Back.')]),
    );
    expect(back).toMatchObject({ pagesNew: 1, pagesUnchanged: 1, pagesRemoved: 0 });
    expect((await store.docs.docPageChanges(P, [`${SITE}a/two`])).get(`${SITE}a/two`)).toEqual({
      changedAt: T0 + 310,
      removedAt: null,
    });
    expect((await store.docs.listDocPages('a')).map((p) => p.url.slice(SITE.length))).toEqual([
      'a/one',
      'a/two',
    ]);
  });

  it("keeps each page's copies with their validators, replaced by each crawl, new, changed or unchanged", async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    const copy = (path: string, etag: string | null) => ({
      url: `${SITE}a/${path}`,
      etag,
      lastModified: null,
    });
    const copies = async () =>
      Object.fromEntries(
        (await store.docs.listDocPages('a')).map((p) => [p.url.slice(SITE.length), p.copies]),
      );
    await store.docs.applyDocCrawl(
      crawl(T0, [{ ...page('one', 'new'), copies: [copy('one/index.html', '"x1"')] }, page('two', 'new')]),
    );
    expect(await copies()).toEqual({ 'a/one': [copy('one/index.html', '"x1"')], 'a/two': [] });
    // An unchanged page's copies move on as its validators do; a changed one's are replaced.
    await store.docs.applyDocCrawl(
      crawl(T0 + 100, [
        { ...page('one', 'unchanged'), copies: [copy('one/index.html', '"x2"'), copy('alias', null)] },
        { ...page('two', 'changed', 'Rewritten.'), copies: [copy('two.html', '"t"')] },
      ]),
    );
    expect(await copies()).toEqual({
      'a/one': [copy('one/index.html', '"x2"'), copy('alias', null)],
      'a/two': [copy('two.html', '"t"')],
    });
    await store.docs.applyDocCrawl(crawl(T0 + 200, [page('one', 'unchanged'), page('two', 'unchanged')]));
    expect(await copies()).toEqual({ 'a/one': [], 'a/two': [] });
  });

  it("keeps each page's sitemap lastmod and when it was last checked, new, changed or unchanged; none before either was kept", async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    const marks = async () =>
      Object.fromEntries(
        (await store.docs.listDocPages('a')).map((p) => [
          p.url.slice(SITE.length),
          [p.sitemapLastmod, p.checkedAt],
        ]),
      );
    await store.docs.applyDocCrawl(
      crawl(T0, [{ ...page('one', 'new'), sitemapLastmod: T0 - 5_000, checkedAt: T0 }, page('two', 'new')]),
    );
    expect(await marks()).toEqual({ 'a/one': [T0 - 5_000, T0], 'a/two': [null, null] });
    // A page skipped for its lastmod comes back with the marks it had; one revalidated, with new ones.
    await store.docs.applyDocCrawl(
      crawl(T0 + 100, [
        { ...page('one', 'unchanged'), sitemapLastmod: T0 - 5_000, checkedAt: T0 },
        { ...page('two', 'changed', 'Rewritten.'), sitemapLastmod: T0 + 50, checkedAt: T0 + 90 },
      ]),
    );
    expect(await marks()).toEqual({ 'a/one': [T0 - 5_000, T0], 'a/two': [T0 + 50, T0 + 90] });
    await store.docs.applyDocCrawl(
      crawl(T0 + 200, [{ ...page('one', 'unchanged'), sitemapLastmod: T0 + 150, checkedAt: T0 + 190 }]),
    );
    expect((await marks())['a/one']).toEqual([T0 + 150, T0 + 190]);
  });

  it('keeps the pages it did not read when the crawl was incomplete', async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new'), page('two', 'new')]));
    const run = await store.docs.applyDocCrawl(crawl(T0 + 100, [], { complete: false }));
    expect(run).toMatchObject({ pagesRemoved: 0, complete: false });
    expect((await store.docs.listDocPages('a')).map((p) => p.url.slice(SITE.length))).toEqual([
      'a/one',
      'a/two',
    ]);
  });

  it("keeps a source's exclude patterns, replaces them with a crawl due, and drops the pages they now exclude", async () => {
    await open();
    await store.docs.addDocSource({ ...source('a'), exclude: ['/a/blog/', '*/releases/'] });
    expect((await store.docs.listDocSources(P))[0].exclude).toEqual(['/a/blog/', '*/releases/']);
    await store.docs.applyDocCrawl(
      crawl(T0, [page('one', 'new'), page('two', 'new')], { excluded: 7, disallowed: 3 }),
    );
    expect((await store.docs.listDocSources(P))[0].lastRun).toMatchObject({
      pagesNew: 2,
      pagesExcluded: 7,
      pagesDisallowed: 3,
    });

    expect(await store.docs.setDocExclusions(P, 'a', ['/a/two'], T0 + 50)).toBe(true);
    expect(await store.docs.setDocExclusions('proj_other', 'a', [], T0 + 50)).toBe(false);
    expect(await store.docs.setDocExclusions(P, 'zz', [], T0 + 50)).toBe(false);
    expect((await store.docs.listDocSources(P))[0]).toMatchObject({
      exclude: ['/a/two'],
      nextCrawlAt: T0 + 50,
    });

    // Even a crawl that could not tell which pages are gone drops the ones now excluded.
    const version = await store.docs.docsVersion(P);
    const run = await store.docs.applyDocCrawl(
      crawl(T0 + 100, [], { complete: false, excluded: 1, dropped: [`${SITE}a/two`] }),
    );
    expect(run).toMatchObject({ complete: false, pagesRemoved: 1, pagesExcluded: 1, pagesDisallowed: 0 });
    expect((await store.docs.listDocPages('a')).map((p) => p.url.slice(SITE.length))).toEqual(['a/one']);
    expect((await store.docs.listDocSections(P)).map((s) => s.url.slice(SITE.length))).toEqual([
      'a/one',
      'a/one#more',
    ]);
    expect(await store.docs.docsVersion(P)).toBeGreaterThan(version);
    expect((await store.docs.listCrawlRuns('a', 1))[0].pagesExcluded).toBe(1);
  });

  it('schedules a re-crawl, and stores embeddings beside the sections', async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    expect(await store.docs.scheduleDocCrawl(P, 'a', T0 + 5)).toBe(true);
    expect(await store.docs.scheduleDocCrawl(P, 'zz', T0 + 5)).toBe(false);
    expect((await store.docs.listDocSources(P))[0].nextCrawlAt).toBe(T0 + 5);
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new')]));
    const [first] = await store.docs.listDocSections(P);
    const version = await store.docs.docsVersion(P);
    await store.docs.putEmbeddings(P, 'embed-small', [{ id: first.id, embedding: [0.6, 0.8] }]);
    const [embedded, plain] = await store.docs.listDocSections(P);
    expect(embedded.embedding?.map((v) => Math.round(v * 10) / 10)).toEqual([0.6, 0.8]);
    expect(embedded.embeddingModel).toBe('embed-small');
    expect(plain.embedding).toBeNull();
    expect(await store.docs.docsVersion(P)).toBeGreaterThan(version);
  });

  it("keeps each project's docs apart: sources, sections, versions, changes, and a project's delete takes its own", async () => {
    await open();
    const B = 'proj_b';
    await store.directory.createProject({ id: B, name: 'B', ownerSecret: 's', createdAt: T0 });
    // The same site in both projects is two sources.
    expect(await store.docs.addDocSource(source('a'))).toBe(true);
    expect(await store.docs.addDocSource(source('b', `${SITE}a/`, B))).toBe(true);
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new')]));
    expect((await store.docs.listDocSources(P)).map((s) => s.id)).toEqual(['a']);
    expect((await store.docs.listDocSources(B)).map((s) => [s.id, s.pages])).toEqual([['b', 0]]);
    expect((await store.docs.listDocSources()).map((s) => s.id).sort()).toEqual(['a', 'b']);
    expect(await store.docs.listDocSections(B)).toEqual([]);
    expect(await store.docs.docsVersion(B)).toBe(0);
    expect(await store.docs.docPageChanges(B, [`${SITE}a/one`])).toEqual(new Map());
    // Another project's source is not reached through this one.
    expect(await store.docs.removeDocSource(B, 'a')).toBe(false);
    expect(await store.docs.scheduleDocCrawl(B, 'a', T0)).toBe(false);
    const [section] = await store.docs.listDocSections(P);
    await store.docs.putEmbeddings(B, 'embed-small', [{ id: section.id, embedding: [1, 0] }]);
    expect((await store.docs.listDocSections(P))[0].embedding).toBeNull();

    await store.directory.createProject({ id: P, name: 'A', ownerSecret: 's', createdAt: T0 });
    expect(await store.directory.deleteProject(P)).toBe(true);
    expect(await store.docs.listDocSources(P)).toEqual([]);
    expect(await store.docs.listDocSections(P)).toEqual([]);
    expect(await store.docs.listCrawlRuns('a', 5)).toEqual([]);
    expect((await store.docs.listDocSources(B)).map((s) => s.id)).toEqual(['b']);
  });

  it("keeps each project's synonyms, moves its index version when they change, and a project's delete takes them", async () => {
    await open();
    const B = 'proj_b';
    await store.directory.createProject({ id: P, name: 'A', ownerSecret: 's', createdAt: T0 });
    await store.directory.createProject({ id: B, name: 'B', ownerSecret: 's', createdAt: T0 });
    expect(await store.docs.docSynonyms(P)).toEqual([]);
    const version = await store.docs.docsVersion(P);
    await store.docs.setDocSynonyms(P, [
      ['auto increment', 'serial'],
      ['upsert', 'on conflict'],
    ]);
    expect(await store.docs.docSynonyms(P)).toEqual([
      ['auto increment', 'serial'],
      ['upsert', 'on conflict'],
    ]);
    expect(await store.docs.docsVersion(P)).toBe(version + 1);
    expect(await store.docs.docSynonyms(B)).toEqual([]);
    expect(await store.docs.docsVersion(B)).toBe(0);
    // Replaced whole, not merged.
    await store.docs.setDocSynonyms(P, [['tree', 'recursive query']]);
    expect(await store.docs.docSynonyms(P)).toEqual([['tree', 'recursive query']]);
    expect(await store.docs.docsVersion(P)).toBe(version + 2);

    expect(await store.directory.deleteProject(P)).toBe(true);
    expect(await store.docs.docSynonyms(P)).toEqual([]);
  });

  it("keeps how far a source's crawl has got, replaced at each write, cleared by its run, by a clear or with the source", async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    await store.docs.addDocSource(source('b'));
    const progress = (pagesRead: number, extra = {}) => ({
      sourceId: 'a',
      phase: 'pages' as const,
      pagesRead,
      pagesFailed: 1,
      startedAt: T0,
      updatedAt: T0 + pagesRead,
      ...extra,
    });
    const crawls = async () => (await store.docs.listDocSources(P)).map((s) => s.crawl);
    expect(await crawls()).toEqual([null, null]);
    await store.docs.putDocCrawlProgress(progress(0, { phase: 'sitemap', pagesFailed: 0 }));
    await store.docs.putDocCrawlProgress(progress(340));
    expect(await crawls()).toEqual([progress(340), null]);
    // Every project's list (the schedule's) carries it too.
    expect((await store.docs.listDocSources()).find((s) => s.id === 'a')?.crawl).toEqual(progress(340));

    // The run takes over: the crawl's progress goes in the same write.
    await store.docs.putDocCrawlProgress(progress(341, { phase: 'saving' }));
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new')]));
    expect(await crawls()).toEqual([null, null]);

    // A crawl that stopped without a run is cleared; a removed source takes its own and gets no more.
    await store.docs.putDocCrawlProgress(progress(5, { sourceId: 'b' }));
    await store.docs.clearDocCrawlProgress('b');
    expect(await crawls()).toEqual([null, null]);
    await store.docs.putDocCrawlProgress(progress(7));
    expect(await store.docs.removeDocSource(P, 'a')).toBe(true);
    await store.docs.putDocCrawlProgress(progress(8));
    await store.docs.addDocSource(source('a'));
    expect(await crawls()).toEqual([null, null]);
  });

  it('lends the crawl lease to one holder at a time, until it expires or is released', async () => {
    await open();
    expect(await store.docs.claimDocCrawl('i1', 1000, T0)).toBe(true);
    expect(await store.docs.claimDocCrawl('i2', 1000, T0 + 500)).toBe(false);
    expect(await store.docs.claimDocCrawl('i1', 1000, T0 + 500)).toBe(true);
    expect(await store.docs.claimDocCrawl('i2', 1000, T0 + 1499)).toBe(false);
    expect(await store.docs.claimDocCrawl('i2', 1000, T0 + 1500)).toBe(true);
    await store.docs.releaseDocCrawl('i1');
    expect(await store.docs.claimDocCrawl('i1', 1000, T0 + 1600)).toBe(false);
    await store.docs.releaseDocCrawl('i2');
    expect(await store.docs.claimDocCrawl('i1', 1000, T0 + 1600)).toBe(true);
  });
});
