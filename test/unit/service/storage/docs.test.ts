/** The documentation role on every engine: sources, crawls applied whole, the index's version, the crawl lease. */
import { expect, it } from 'vitest';
import type { DocCrawl, Stores } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

const SITE = 'https://docs.test/';
const source = (id: string, location = `${SITE}${id}/`) => ({
  id,
  location,
  kind: 'site' as const,
  publicUrl: null,
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
    const [a, b] = await store.docs.listDocSources();
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
    const version = await store.docs.docsVersion();
    expect(await store.docs.removeDocSource('a')).toBe(true);
    expect(await store.docs.removeDocSource('a')).toBe(false);
    expect(await store.docs.listDocSections()).toEqual([]);
    expect(await store.docs.listCrawlRuns('a', 5)).toEqual([]);
    expect(await store.docs.docsVersion()).toBeGreaterThan(version);
    expect((await store.docs.listDocSources()).map((s) => s.id)).toEqual(['b']);
  });

  it('applies a crawl whole: new, changed, unchanged and removed pages, the run counted, the version moved only on change', async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    const v0 = await store.docs.docsVersion();
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new'), page('two', 'new')]));
    const v1 = await store.docs.docsVersion();
    expect(v1).toBeGreaterThan(v0);
    const sections = await store.docs.listDocSections();
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
    expect(await store.docs.docsVersion()).toBe(v1);
    expect((await store.docs.listDocSections()).map((s) => s.id)).toEqual(sections.map((s) => s.id));

    // One changed, one gone: its sections go with it.
    const run = await store.docs.applyDocCrawl(crawl(T0 + 200, [page('one', 'changed', 'Rewritten.')]));
    expect(run).toMatchObject({ pagesChanged: 1, pagesRemoved: 1 });
    expect((await store.docs.listDocSections()).map((s) => s.text)).toEqual([
      'Rewritten.',
      'Rewritten. More.',
    ]);
    expect(await store.docs.docsVersion()).toBeGreaterThan(v1);
    const pages = await store.docs.listDocPages('a');
    expect(pages.map((p) => [p.url.slice(SITE.length), p.etag, p.changedAt])).toEqual([
      ['a/one', '"one-10"', T0 + 210],
    ]);
    expect((await store.docs.listCrawlRuns('a', 2)).map((r) => r.startedAt)).toEqual([T0 + 200, T0 + 100]);
    expect(await store.docs.docPagesChangedAt([`${SITE}a/one`, `${SITE}a/two`])).toEqual(
      new Map([[`${SITE}a/one`, T0 + 210]]),
    );
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

  it('schedules a re-crawl, and stores embeddings beside the sections', async () => {
    await open();
    await store.docs.addDocSource(source('a'));
    expect(await store.docs.scheduleDocCrawl('a', T0 + 5)).toBe(true);
    expect(await store.docs.scheduleDocCrawl('zz', T0 + 5)).toBe(false);
    expect((await store.docs.listDocSources())[0].nextCrawlAt).toBe(T0 + 5);
    await store.docs.applyDocCrawl(crawl(T0, [page('one', 'new')]));
    const [first] = await store.docs.listDocSections();
    const version = await store.docs.docsVersion();
    await store.docs.putEmbeddings('embed-small', [{ id: first.id, embedding: [0.6, 0.8] }]);
    const [embedded, plain] = await store.docs.listDocSections();
    expect(embedded.embedding?.map((v) => Math.round(v * 10) / 10)).toEqual([0.6, 0.8]);
    expect(embedded.embeddingModel).toBe('embed-small');
    expect(plain.embedding).toBeNull();
    expect(await store.docs.docsVersion()).toBeGreaterThan(version);
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
