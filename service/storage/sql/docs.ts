import type { SqlClient } from '../sql-client.js';
import { startedRun } from '../types.js';
import type {
  CrawlRunRecord,
  DocCrawl,
  DocCrawlProgress,
  DocPageChange,
  DocPageCopy,
  DocPageRecord,
  DocSectionRecord,
  DocSourceRecord,
  DocsStore,
} from '../types.js';
import { json, num, numOrNull } from './rows.js';

const toSource = (row: Record<string, unknown>): DocSourceRecord => ({
  id: String(row.id),
  projectId: String(row.project_id),
  location: String(row.location),
  kind: row.kind === 'folder' ? 'folder' : 'site',
  publicUrl: (row.public_url as string | null) ?? null,
  exclude: (row.exclude as string[] | null) ?? [],
  createdAt: num(row.created_at),
  lastCrawlAt: numOrNull(row.last_crawl_at),
  nextCrawlAt: num(row.next_crawl_at),
});

const toRun = (row: Record<string, unknown>): CrawlRunRecord => ({
  id: num(row.id),
  sourceId: String(row.source_id),
  startedAt: num(row.started_at),
  finishedAt: num(row.finished_at),
  complete: row.complete === true,
  truncated: row.truncated === true,
  pagesNew: num(row.pages_new),
  pagesChanged: num(row.pages_changed),
  pagesUnchanged: num(row.pages_unchanged),
  pagesRemoved: num(row.pages_removed),
  pagesExcluded: num(row.pages_excluded ?? 0),
  pagesDisallowed: num(row.pages_disallowed ?? 0),
  pagesSpared: num(row.pages_spared ?? 0),
  lastmodLieAt: numOrNull(row.lastmod_lie_at ?? null),
  failures: row.failures as CrawlRunRecord['failures'],
});

const toProgress = (row: Record<string, unknown>): DocCrawlProgress => ({
  sourceId: String(row.source_id),
  phase: row.phase as DocCrawlProgress['phase'],
  pagesRead: num(row.pages_read),
  pagesFailed: num(row.pages_failed),
  startedAt: num(row.started_at),
  updatedAt: num(row.updated_at),
});

const toSection = (row: Record<string, unknown>): DocSectionRecord => ({
  id: num(row.id),
  sourceId: String(row.source_id),
  url: String(row.url),
  pageUrl: String(row.page_url),
  title: String(row.title),
  headings: row.headings as string[],
  text: String(row.body),
  embedding: row.embedding ? (row.embedding as unknown[]).map(Number) : null,
  embeddingModel: (row.embedding_model as string | null) ?? null,
});

/** Moves a project's index version. */
const BUMP = `INSERT INTO doc_versions (project_id, version) VALUES ($1, 1)
  ON CONFLICT (project_id) DO UPDATE SET version = doc_versions.version + 1`;

type Query = SqlClient['query'];
type CrawledPage = DocCrawl['pages'][number];
type Counts = Pick<
  CrawlRunRecord,
  'pagesNew' | 'pagesChanged' | 'pagesUnchanged' | 'pagesRemoved' | 'pagesExcluded' | 'pagesDisallowed'
>;

/**
 * The documentation in SQL (decisions 294, 298): tables `doc_*`, one index version per project
 * in `doc_versions`. A page that left the site keeps its row (`removed_at`) without sections.
 */
export class SqlDocsStore implements DocsStore {
  constructor(private readonly db: SqlClient) {}

  async listDocSources(projectId?: string) {
    const { rows } = await this.db.query(
      `SELECT s.*,
         (SELECT count(*) FROM doc_pages p WHERE p.source_id = s.id AND p.removed_at IS NULL)::int AS pages,
         (SELECT count(*) FROM doc_sections x WHERE x.source_id = s.id)::int AS sections,
         (SELECT row_to_json(r) FROM doc_crawl_runs r WHERE r.source_id = s.id ORDER BY r.id DESC LIMIT 1) AS last_run,
         (SELECT row_to_json(c) FROM doc_crawl_progress c WHERE c.source_id = s.id) AS crawl
       FROM doc_sources s WHERE $1::text IS NULL OR s.project_id = $1 ORDER BY s.created_at, s.id`,
      [projectId ?? null],
    );
    return rows.map((row) => ({
      ...toSource(row),
      pages: num(row.pages),
      sections: num(row.sections),
      lastRun: row.last_run ? toRun(row.last_run as Record<string, unknown>) : null,
      crawl: row.crawl ? toProgress(row.crawl as Record<string, unknown>) : null,
    }));
  }

  async addDocSource(source: DocSourceRecord) {
    const { rowCount } = await this.db.query(
      `INSERT INTO doc_sources (id, project_id, location, kind, public_url, exclude, created_at, last_crawl_at, next_crawl_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [
        source.id,
        source.projectId,
        source.location,
        source.kind,
        source.publicUrl,
        json(source.exclude),
        source.createdAt,
        source.lastCrawlAt,
        source.nextCrawlAt,
      ],
    );
    return rowCount === 1;
  }

  async removeDocSource(projectId: string, id: string) {
    return this.db.transaction(async (query) => {
      const { rowCount } = await query('DELETE FROM doc_sources WHERE id = $1 AND project_id = $2', [
        id,
        projectId,
      ]);
      if (rowCount) await query(BUMP, [projectId]);
      return rowCount === 1;
    });
  }

  async scheduleDocCrawl(projectId: string, id: string, at: number) {
    const { rowCount } = await this.db.query(
      'UPDATE doc_sources SET next_crawl_at = $3 WHERE id = $1 AND project_id = $2',
      [id, projectId, at],
    );
    return rowCount === 1;
  }

  async setDocExclusions(projectId: string, id: string, exclude: string[], at: number) {
    const { rowCount } = await this.db.query(
      'UPDATE doc_sources SET exclude = $3::jsonb, next_crawl_at = $4 WHERE id = $1 AND project_id = $2',
      [id, projectId, json(exclude), at],
    );
    return rowCount === 1;
  }

  async listDocPages(sourceId: string): Promise<DocPageRecord[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM doc_pages WHERE source_id = $1 AND removed_at IS NULL ORDER BY url',
      [sourceId],
    );
    return rows.map((row) => ({
      sourceId: String(row.source_id),
      url: String(row.url),
      title: String(row.title),
      etag: (row.etag as string | null) ?? null,
      lastModified: (row.last_modified as string | null) ?? null,
      hash: String(row.hash),
      links: row.links as string[],
      copies: row.copies as DocPageCopy[],
      sitemapLastmod: row.sitemap_lastmod == null ? null : num(row.sitemap_lastmod),
      checkedAt: row.checked_at == null ? null : num(row.checked_at),
      changedAt: num(row.changed_at),
    }));
  }

  async applyDocCrawl(crawl: DocCrawl) {
    return this.db.transaction(async (query) => {
      const run = startedRun(crawl);
      // The source's row is locked for the crawl's writes; one removed meanwhile stays removed.
      const source = await query('SELECT project_id FROM doc_sources WHERE id = $1 FOR UPDATE', [
        crawl.sourceId,
      ]);
      if (!source.rows.length) return { id: 0, ...run };
      const known = new Set(
        (
          await query('SELECT url FROM doc_pages WHERE source_id = $1 AND removed_at IS NULL', [
            crawl.sourceId,
          ])
        ).rows.map((r) => String(r.url)),
      );
      let changed = await applyPages(query, crawl, known, run);
      if (crawl.complete || crawl.dropped?.length)
        changed = (await markRemoved(query, crawl, run)) || changed;
      await query('UPDATE doc_sources SET last_crawl_at = $2, next_crawl_at = $3 WHERE id = $1', [
        crawl.sourceId,
        crawl.finishedAt,
        crawl.nextCrawlAt,
      ]);
      if (changed) await query(BUMP, [String(source.rows[0].project_id)]);
      await query('DELETE FROM doc_crawl_progress WHERE source_id = $1', [crawl.sourceId]);
      return { id: await recordRun(query, run), ...run };
    });
  }

  /**
   * Read a page of sections at a time, with a turn to other work between pages: the embedded
   * database runs on this thread, and one statement for the Python manual's 15,000 sections held
   * the event loop 0.4-0.9 s at every index build. One snapshot (repeatable read), so a crawl
   * applied meanwhile is either all in or all out.
   */
  async listDocSections(projectId: string): Promise<DocSectionRecord[]> {
    return this.db.transaction(async (query) => {
      await query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const { rows: sources } = await query(
        'SELECT id FROM doc_sources WHERE project_id = $1 ORDER BY created_at, id',
        [projectId],
      );
      const sections: DocSectionRecord[] = [];
      for (const { id } of sources) {
        let after: [string, number] | null = null;
        do {
          if (sections.length) await new Promise((resolve) => setImmediate(resolve));
          const { rows } = await query(
            `SELECT * FROM doc_sections WHERE source_id = $1 ${after ? 'AND (page_url, position) > ($3, $4)' : ''}
             ORDER BY page_url, position LIMIT $2`,
            after ? [id, READ_SECTIONS, ...after] : [id, READ_SECTIONS],
          );
          sections.push(...rows.map(toSection));
          const last = rows.at(-1);
          after =
            rows.length === READ_SECTIONS && last ? [String(last.page_url), Number(last.position)] : null;
        } while (after);
      }
      return sections;
    });
  }

  async docsVersion(projectId: string) {
    const { rows } = await this.db.query('SELECT version FROM doc_versions WHERE project_id = $1', [
      projectId,
    ]);
    return num(rows[0]?.version ?? 0);
  }

  async docSynonyms(projectId: string) {
    const { rows } = await this.db.query('SELECT groups FROM doc_synonyms WHERE project_id = $1', [
      projectId,
    ]);
    return (rows[0]?.groups as string[][] | undefined) ?? [];
  }

  async setDocSynonyms(projectId: string, groups: string[][]) {
    await this.db.transaction(async (query) => {
      await query(
        `INSERT INTO doc_synonyms (project_id, groups) VALUES ($1, $2::jsonb)
         ON CONFLICT (project_id) DO UPDATE SET groups = excluded.groups`,
        [projectId, JSON.stringify(groups)],
      );
      await query(BUMP, [projectId]);
    });
  }

  async listCrawlRuns(sourceId: string, limit: number) {
    const { rows } = await this.db.query(
      'SELECT * FROM doc_crawl_runs WHERE source_id = $1 ORDER BY id DESC LIMIT $2',
      [sourceId, limit],
    );
    return rows.map(toRun);
  }

  async claimDocCrawl(holder: string, leaseMs: number, now: number) {
    const { rowCount } = await this.db.query(
      `INSERT INTO doc_crawl_lease (one, holder, until) VALUES (true, $1, $2::bigint + $3::bigint)
       ON CONFLICT (one) DO UPDATE SET holder = excluded.holder, until = excluded.until
       WHERE doc_crawl_lease.holder = excluded.holder OR doc_crawl_lease.until <= $2`,
      [holder, now, leaseMs],
    );
    return rowCount === 1;
  }

  async releaseDocCrawl(holder: string) {
    await this.db.query('DELETE FROM doc_crawl_lease WHERE holder = $1', [holder]);
  }

  async putDocCrawlProgress(progress: DocCrawlProgress) {
    await this.db.query(
      `INSERT INTO doc_crawl_progress (source_id, phase, pages_read, pages_failed, started_at, updated_at)
       SELECT id, $2, $3, $4, $5, $6 FROM doc_sources WHERE id = $1
       ON CONFLICT (source_id) DO UPDATE SET phase = excluded.phase, pages_read = excluded.pages_read,
         pages_failed = excluded.pages_failed, started_at = excluded.started_at, updated_at = excluded.updated_at`,
      [
        progress.sourceId,
        progress.phase,
        progress.pagesRead,
        progress.pagesFailed,
        progress.startedAt,
        progress.updatedAt,
      ],
    );
  }

  async clearDocCrawlProgress(sourceId: string) {
    await this.db.query('DELETE FROM doc_crawl_progress WHERE source_id = $1', [sourceId]);
  }

  async putEmbeddings(projectId: string, model: string, vectors: { id: number; embedding: number[] }[]) {
    if (!vectors.length) return;
    await this.db.transaction(async (query) => {
      const { rowCount } = await query(
        `UPDATE doc_sections x SET embedding = v.embedding::real[], embedding_model = $1
         FROM unnest($2::bigint[], $3::text[]) AS v(id, embedding)
         WHERE x.id = v.id AND x.source_id IN (SELECT id FROM doc_sources WHERE project_id = $4)`,
        [model, vectors.map((v) => v.id), vectors.map((v) => `{${v.embedding.join(',')}}`), projectId],
      );
      if (rowCount) await query(BUMP, [projectId]);
    });
  }

  async docPageChanges(projectId: string, urls: string[]) {
    if (!urls.length) return new Map<string, DocPageChange>();
    // A page two sources hold: it changed when either saw it change, and left when both did.
    const { rows } = await this.db.query(
      `SELECT p.url, max(p.changed_at) AS changed_at,
         CASE WHEN bool_or(p.removed_at IS NULL) THEN NULL ELSE max(p.removed_at) END AS removed_at
       FROM doc_pages p JOIN doc_sources s ON s.id = p.source_id
       WHERE s.project_id = $1 AND p.url = ANY($2::text[]) GROUP BY p.url`,
      [projectId, urls],
    );
    return new Map(
      rows.map((row) => [
        String(row.url),
        { changedAt: num(row.changed_at), removedAt: numOrNull(row.removed_at) },
      ]),
    );
  }
}

/** Sections read by one statement when an index is built (about 40 ms of the embedded database's time). */
const READ_SECTIONS = 1_000;

/** Most pages, and most characters of section text, written by one statement. */
const BATCH_PAGES = 200;
const BATCH_CHARACTERS = 200_000;

/** The pages in batches of at most {@link BATCH_PAGES} pages and {@link BATCH_CHARACTERS} characters. */
function batchesOf(pages: CrawledPage[]): CrawledPage[][] {
  const batches: CrawledPage[][] = [];
  let batch: CrawledPage[] = [];
  let characters = 0;
  for (const page of pages) {
    const size = page.sections.reduce((sum, section) => sum + section.text.length, 0);
    if (batch.length && (batch.length === BATCH_PAGES || characters + size > BATCH_CHARACTERS)) {
      batches.push(batch);
      batch = [];
      characters = 0;
    }
    batch.push(page);
    characters += size;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/**
 * The crawl's pages, counted, written in a few statements per batch; true when any page's
 * sections changed. Between batches the process turns to its other work: on PGlite the database
 * runs in this process, and a transaction's queries otherwise follow each other without letting
 * a request in (1.2 s for the Python manual's 15,303 sections, when each page had its statements).
 */
async function applyPages(query: Query, crawl: DocCrawl, known: Set<string>, counts: Counts) {
  // One statement cannot write a row twice: a page the crawl holds twice counts once, as read last.
  const pages = [...new Map(crawl.pages.map((page) => [page.url, page])).values()];
  const kept = (page: CrawledPage) => page.status === 'unchanged' && known.has(page.url);
  let changed = false;
  for (const [i, batch] of batchesOf(pages).entries()) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    const same = batch.filter(kept);
    const fresh = batch.filter((page) => !kept(page));
    counts.pagesUnchanged += same.length;
    const changedPages = fresh.filter((page) => known.has(page.url)).length;
    counts.pagesChanged += changedPages;
    counts.pagesNew += fresh.length - changedPages;
    if (same.length) await touchPages(query, crawl, same);
    if (fresh.length) await replacePages(query, crawl, fresh);
    changed ||= fresh.length > 0;
  }
  return changed;
}

/** Pages the site says are unchanged keep their sections; their validators and links move on. */
async function touchPages(query: Query, crawl: DocCrawl, pages: CrawledPage[]) {
  await query(
    `UPDATE doc_pages p SET etag = x.etag, last_modified = x.last_modified, links = x.links::jsonb,
       title = coalesce(nullif(x.title, ''), p.title), copies = x.copies::jsonb,
       sitemap_lastmod = x.sitemap_lastmod, checked_at = x.checked_at
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[])
       AS x(url, etag, last_modified, links, title, copies, sitemap_lastmod, checked_at)
     WHERE p.source_id = $1 AND p.url = x.url`,
    [
      crawl.sourceId,
      pages.map((page) => page.url),
      pages.map((page) => page.etag),
      pages.map((page) => page.lastModified),
      pages.map((page) => json(page.links)),
      pages.map((page) => page.title),
      pages.map((page) => json(page.copies ?? [])),
      pages.map((page) => page.sitemapLastmod ?? null),
      pages.map((page) => page.checkedAt ?? null),
    ],
  );
}

/** New and changed pages: their rows written, their sections replaced. */
async function replacePages(query: Query, crawl: DocCrawl, pages: CrawledPage[]) {
  const urls = pages.map((page) => page.url);
  await query(
    `INSERT INTO doc_pages (source_id, url, title, etag, last_modified, hash, links, copies,
       sitemap_lastmod, checked_at, changed_at, removed_at)
     SELECT $1, x.url, x.title, x.etag, x.last_modified, x.hash, x.links::jsonb, x.copies::jsonb,
       x.sitemap_lastmod, x.checked_at, $2, NULL
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
       $10::bigint[], $11::bigint[])
       AS x(url, title, etag, last_modified, hash, links, copies, sitemap_lastmod, checked_at)
     ON CONFLICT (source_id, url) DO UPDATE SET title = excluded.title, etag = excluded.etag,
       last_modified = excluded.last_modified, hash = excluded.hash, links = excluded.links,
       copies = excluded.copies, sitemap_lastmod = excluded.sitemap_lastmod,
       checked_at = excluded.checked_at, changed_at = excluded.changed_at, removed_at = NULL`,
    [
      crawl.sourceId,
      crawl.finishedAt,
      urls,
      pages.map((page) => page.title),
      pages.map((page) => page.etag),
      pages.map((page) => page.lastModified),
      pages.map((page) => page.hash),
      pages.map((page) => json(page.links)),
      pages.map((page) => json(page.copies ?? [])),
      pages.map((page) => page.sitemapLastmod ?? null),
      pages.map((page) => page.checkedAt ?? null),
    ],
  );
  await query('DELETE FROM doc_sections WHERE source_id = $1 AND page_url = ANY($2::text[])', [
    crawl.sourceId,
    urls,
  ]);
  const sections = pages.flatMap((page) =>
    page.sections.map((section, position) => ({ page, section, position })),
  );
  if (sections.length)
    await query(
      `INSERT INTO doc_sections (source_id, page_url, position, url, title, headings, body)
       SELECT $1, x.page_url, x.position, x.url, x.title, x.headings::jsonb, x.body
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS x(page_url, position, url, title, headings, body)`,
      [
        crawl.sourceId,
        sections.map((s) => s.page.url),
        sections.map((s) => s.position),
        sections.map((s) => s.section.url),
        sections.map((s) => s.section.title),
        sections.map((s) => json(s.section.headings)),
        sections.map((s) => s.section.text),
      ],
    );
}

/**
 * After a complete crawl, the pages it did not read have left the site; the `dropped` ones the
 * owner excluded go after any crawl: their sections go, their rows stay.
 */
async function markRemoved(query: Query, crawl: DocCrawl, counts: Counts): Promise<boolean> {
  const read = crawl.pages.map((page) => page.url);
  const gone = `($2::boolean AND NOT (p.url = ANY($3::text[]))) OR p.url = ANY($4::text[])`;
  const params = [crawl.sourceId, crawl.complete, read, crawl.dropped ?? []];
  await query(
    `DELETE FROM doc_sections x USING doc_pages p
     WHERE p.source_id = $1 AND p.removed_at IS NULL AND (${gone})
       AND x.source_id = p.source_id AND x.page_url = p.url`,
    params,
  );
  const removed = await query(
    `UPDATE doc_pages p SET removed_at = $5
     WHERE p.source_id = $1 AND p.removed_at IS NULL AND (${gone})`,
    [...params, crawl.finishedAt],
  );
  counts.pagesRemoved = removed.rowCount;
  return removed.rowCount > 0;
}

/** The run, recorded; its id. */
async function recordRun(query: Query, run: Omit<CrawlRunRecord, 'id'>): Promise<number> {
  const { rows } = await query(
    `INSERT INTO doc_crawl_runs (source_id, started_at, finished_at, complete, truncated,
       pages_new, pages_changed, pages_unchanged, pages_removed, pages_excluded, pages_disallowed,
       pages_spared, lastmod_lie_at, failures)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb) RETURNING id`,
    [
      run.sourceId,
      run.startedAt,
      run.finishedAt,
      run.complete,
      run.truncated,
      run.pagesNew,
      run.pagesChanged,
      run.pagesUnchanged,
      run.pagesRemoved,
      run.pagesExcluded,
      run.pagesDisallowed,
      run.pagesSpared,
      run.lastmodLieAt,
      json(run.failures),
    ],
  );
  return num(rows[0].id);
}
