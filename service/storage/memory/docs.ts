import { startedRun } from '../types.js';
import type {
  CrawlRunRecord,
  DocCrawl,
  DocCrawlProgress,
  DocPageChange,
  DocPageRecord,
  DocSectionRecord,
  DocSourceRecord,
  DocsStore,
} from '../types.js';
import type { MemoryState } from './state.js';

type StoredPage = DocPageRecord & { removedAt: number | null };
type CrawledPage = DocCrawl['pages'][number];

/**
 * The documentation in memory, as `sql/docs.ts` keeps it in tables. It shares nothing with the
 * other roles but a project's delete, which takes the project's sources with it.
 */
export class MemoryDocsStore implements DocsStore {
  private readonly sources = new Map<string, DocSourceRecord>();
  /** Pages by source, then by URL; a page that left the site keeps its row, without sections. */
  private readonly pages = new Map<string, Map<string, StoredPage>>();
  /** Sections by `<source>\n<page URL>`, in page order. */
  private readonly sections = new Map<string, DocSectionRecord[]>();
  private readonly runs: CrawlRunRecord[] = [];
  private readonly versions = new Map<string, number>();
  private readonly synonyms = new Map<string, string[][]>();
  /** The crawls under way, by source. */
  private readonly progress = new Map<string, DocCrawlProgress>();
  private lease: { holder: string; until: number } | null = null;
  private nextSection = 1;
  private nextRun = 1;

  constructor(state: MemoryState) {
    state.pageChanges = (projectId, urls) => this.pageChanges(projectId, urls);
    state.projectParts.push((projectId) => {
      for (const source of this.sources.values()) if (source.projectId === projectId) this.drop(source.id);
      this.versions.delete(projectId);
      this.synonyms.delete(projectId);
    });
  }

  async listDocSources(projectId?: string) {
    return [...this.sources.values()]
      .filter((source) => projectId === undefined || source.projectId === projectId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((source) => {
        const pages = this.livePages(source.id);
        const sections = pages.reduce(
          (sum, page) => sum + (this.sections.get(`${source.id}\n${page.url}`)?.length ?? 0),
          0,
        );
        const lastRun = this.runs.filter((run) => run.sourceId === source.id).at(-1) ?? null;
        const crawl = this.progress.get(source.id);
        return {
          ...source,
          exclude: [...source.exclude],
          pages: pages.length,
          sections,
          lastRun: lastRun && structuredClone(lastRun),
          crawl: crawl ? { ...crawl } : null,
        };
      });
  }

  async addDocSource(source: DocSourceRecord) {
    const taken = [...this.sources.values()].some(
      (s) => s.projectId === source.projectId && s.location === source.location,
    );
    if (taken || this.sources.has(source.id)) return false;
    this.sources.set(source.id, { ...source, exclude: [...source.exclude] });
    this.pages.set(source.id, new Map());
    return true;
  }

  async removeDocSource(projectId: string, id: string) {
    if (this.sources.get(id)?.projectId !== projectId) return false;
    this.drop(id);
    this.bump(projectId);
    return true;
  }

  async scheduleDocCrawl(projectId: string, id: string, at: number) {
    const source = this.sources.get(id);
    if (source?.projectId !== projectId) return false;
    source.nextCrawlAt = at;
    return true;
  }

  async setDocExclusions(projectId: string, id: string, exclude: string[], at: number) {
    const source = this.sources.get(id);
    if (source?.projectId !== projectId) return false;
    source.exclude = [...exclude];
    source.nextCrawlAt = at;
    return true;
  }

  async listDocPages(sourceId: string): Promise<DocPageRecord[]> {
    return this.livePages(sourceId).map((page) => ({
      sourceId: page.sourceId,
      url: page.url,
      title: page.title,
      etag: page.etag,
      lastModified: page.lastModified,
      hash: page.hash,
      links: [...page.links],
      copies: structuredClone(page.copies),
      sitemapLastmod: page.sitemapLastmod,
      checkedAt: page.checkedAt,
      changedAt: page.changedAt,
    }));
  }

  async applyDocCrawl(crawl: DocCrawl) {
    const source = this.sources.get(crawl.sourceId);
    const run: CrawlRunRecord = {
      id: this.nextRun++,
      ...startedRun(crawl),
      failures: structuredClone(crawl.failures),
    };
    // A source removed while it was crawled stays removed.
    if (!source) return run;
    let changed = false;
    // A page the crawl holds twice counts once, as read last (as the SQL store's batches do).
    for (const page of new Map(crawl.pages.map((page) => [page.url, page])).values())
      changed = this.applyPage(crawl, page, run) || changed;
    const read = new Set(crawl.pages.map((page) => page.url));
    const dropped = new Set(crawl.dropped);
    for (const page of this.livePages(crawl.sourceId))
      if ((crawl.complete && !read.has(page.url)) || dropped.has(page.url)) {
        page.removedAt = crawl.finishedAt;
        this.sections.delete(`${crawl.sourceId}\n${page.url}`);
        run.pagesRemoved++;
        changed = true;
      }
    source.lastCrawlAt = crawl.finishedAt;
    source.nextCrawlAt = crawl.nextCrawlAt;
    this.progress.delete(crawl.sourceId);
    if (changed) this.bump(source.projectId);
    this.runs.push(run);
    return structuredClone(run);
  }

  /** One page of a crawl, counted in `run`; true when its sections changed. */
  private applyPage(crawl: DocCrawl, page: CrawledPage, run: CrawlRunRecord): boolean {
    const pages = this.pages.get(crawl.sourceId)!;
    const before = pages.get(page.url);
    const known = before && before.removedAt === null ? before : undefined;
    if (page.status === 'unchanged' && known) {
      run.pagesUnchanged++;
      const title = page.title || known.title;
      pages.set(page.url, {
        ...known,
        etag: page.etag,
        lastModified: page.lastModified,
        links: [...page.links],
        copies: structuredClone(page.copies ?? []),
        sitemapLastmod: page.sitemapLastmod ?? null,
        checkedAt: page.checkedAt ?? null,
        title,
      });
      return false;
    }
    if (known) run.pagesChanged++;
    else run.pagesNew++;
    pages.set(page.url, {
      sourceId: crawl.sourceId,
      url: page.url,
      title: page.title,
      etag: page.etag,
      lastModified: page.lastModified,
      hash: page.hash,
      links: [...page.links],
      copies: structuredClone(page.copies ?? []),
      sitemapLastmod: page.sitemapLastmod ?? null,
      checkedAt: page.checkedAt ?? null,
      changedAt: crawl.finishedAt,
      removedAt: null,
    });
    this.sections.set(
      `${crawl.sourceId}\n${page.url}`,
      page.sections.map((section) => ({
        id: this.nextSection++,
        sourceId: crawl.sourceId,
        ...structuredClone(section),
        embedding: null,
        embeddingModel: null,
      })),
    );
    return true;
  }

  async listDocSections(projectId: string) {
    const out: DocSectionRecord[] = [];
    // Source by source, oldest first, as the SQL store reads them.
    const sources = [...this.sources.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1),
    );
    for (const source of sources) {
      if (source.projectId !== projectId) continue;
      for (const url of [...(this.pages.get(source.id)?.keys() ?? [])].sort())
        for (const section of this.sections.get(`${source.id}\n${url}`) ?? [])
          out.push(structuredClone(section));
    }
    return out;
  }

  async docsVersion(projectId: string) {
    return this.versions.get(projectId) ?? 0;
  }

  async docSynonyms(projectId: string) {
    return structuredClone(this.synonyms.get(projectId) ?? []);
  }

  async setDocSynonyms(projectId: string, groups: string[][]) {
    this.synonyms.set(projectId, structuredClone(groups));
    this.bump(projectId);
  }

  async listCrawlRuns(sourceId: string, limit: number) {
    return this.runs
      .filter((run) => run.sourceId === sourceId)
      .reverse()
      .slice(0, limit)
      .map((run) => structuredClone(run));
  }

  async claimDocCrawl(holder: string, leaseMs: number, now: number) {
    if (this.lease && this.lease.holder !== holder && this.lease.until > now) return false;
    this.lease = { holder, until: now + leaseMs };
    return true;
  }

  async releaseDocCrawl(holder: string) {
    if (this.lease?.holder === holder) this.lease = null;
  }

  async putDocCrawlProgress(progress: DocCrawlProgress) {
    if (this.sources.has(progress.sourceId)) this.progress.set(progress.sourceId, { ...progress });
  }

  async clearDocCrawlProgress(sourceId: string) {
    this.progress.delete(sourceId);
  }

  async putEmbeddings(projectId: string, model: string, vectors: { id: number; embedding: number[] }[]) {
    const byId = new Map(vectors.map((v) => [v.id, v.embedding]));
    let changed = false;
    for (const [key, list] of this.sections) {
      if (this.sources.get(key.split('\n')[0])?.projectId !== projectId) continue;
      for (const section of list) {
        const embedding = byId.get(section.id);
        if (!embedding) continue;
        section.embedding = [...embedding];
        section.embeddingModel = model;
        changed = true;
      }
    }
    if (changed) this.bump(projectId);
  }

  async docPageChanges(projectId: string, urls: string[]) {
    return this.pageChanges(projectId, urls);
  }

  private pageChanges(projectId: string, urls: Iterable<string>) {
    const wanted = new Set(urls);
    const out = new Map<string, DocPageChange>();
    for (const source of this.sources.values()) {
      if (source.projectId !== projectId) continue;
      for (const page of this.pages.get(source.id)?.values() ?? []) {
        if (!wanted.has(page.url)) continue;
        // A page two sources hold: it changed when either saw it change, and left when both did.
        const seen = out.get(page.url);
        const removedAt =
          seen === undefined
            ? page.removedAt
            : seen.removedAt === null || page.removedAt === null
              ? null
              : Math.max(seen.removedAt, page.removedAt);
        out.set(page.url, { changedAt: Math.max(seen?.changedAt ?? 0, page.changedAt), removedAt });
      }
    }
    return out;
  }

  private livePages(sourceId: string): StoredPage[] {
    return [...(this.pages.get(sourceId)?.values() ?? [])].filter((page) => page.removedAt === null);
  }

  private bump(projectId: string) {
    this.versions.set(projectId, (this.versions.get(projectId) ?? 0) + 1);
  }

  /** A source with its pages, sections and runs. */
  private drop(id: string) {
    this.sources.delete(id);
    this.progress.delete(id);
    for (const url of this.pages.get(id)?.keys() ?? []) this.sections.delete(`${id}\n${url}`);
    this.pages.delete(id);
    for (let i = this.runs.length - 1; i >= 0; i--) if (this.runs[i].sourceId === id) this.runs.splice(i, 1);
  }
}
