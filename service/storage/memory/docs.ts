import type {
  CrawlRunRecord,
  DocCrawl,
  DocPageRecord,
  DocSectionRecord,
  DocSourceRecord,
  DocsStore,
} from '../types.js';

/** The documentation in memory, as `sql/docs.ts` keeps it in tables; it shares nothing with other roles. */
export class MemoryDocsStore implements DocsStore {
  private readonly sources = new Map<string, DocSourceRecord>();
  /** Pages by source, then by URL. */
  private readonly pages = new Map<string, Map<string, DocPageRecord>>();
  /** Sections by `<source>\n<page URL>`, in page order. */
  private readonly sections = new Map<string, DocSectionRecord[]>();
  private readonly runs: CrawlRunRecord[] = [];
  private lease: { holder: string; until: number } | null = null;
  private version = 0;
  private nextSection = 1;
  private nextRun = 1;

  async listDocSources() {
    return [...this.sources.values()]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((source) => {
        const pages = [...(this.pages.get(source.id)?.values() ?? [])];
        const sections = pages.reduce(
          (sum, page) => sum + (this.sections.get(`${source.id}\n${page.url}`)?.length ?? 0),
          0,
        );
        const lastRun = this.runs.filter((run) => run.sourceId === source.id).at(-1) ?? null;
        return { ...source, pages: pages.length, sections, lastRun: lastRun && structuredClone(lastRun) };
      });
  }

  async addDocSource(source: DocSourceRecord) {
    if ([...this.sources.values()].some((s) => s.location === source.location) || this.sources.has(source.id))
      return false;
    this.sources.set(source.id, { ...source });
    this.pages.set(source.id, new Map());
    return true;
  }

  async removeDocSource(id: string) {
    if (!this.sources.delete(id)) return false;
    for (const url of this.pages.get(id)?.keys() ?? []) this.sections.delete(`${id}\n${url}`);
    this.pages.delete(id);
    for (let i = this.runs.length - 1; i >= 0; i--) if (this.runs[i].sourceId === id) this.runs.splice(i, 1);
    this.version++;
    return true;
  }

  async scheduleDocCrawl(id: string, at: number) {
    const source = this.sources.get(id);
    if (!source) return false;
    source.nextCrawlAt = at;
    return true;
  }

  async listDocPages(sourceId: string) {
    return [...(this.pages.get(sourceId)?.values() ?? [])].map((page) => structuredClone(page));
  }

  async applyDocCrawl(crawl: DocCrawl) {
    const source = this.sources.get(crawl.sourceId);
    const pages = this.pages.get(crawl.sourceId);
    const run: CrawlRunRecord = {
      id: this.nextRun++,
      sourceId: crawl.sourceId,
      startedAt: crawl.startedAt,
      finishedAt: crawl.finishedAt,
      complete: crawl.complete,
      truncated: crawl.truncated,
      pagesNew: 0,
      pagesChanged: 0,
      pagesUnchanged: 0,
      pagesRemoved: 0,
      failures: structuredClone(crawl.failures),
    };
    // A source removed while it was crawled stays removed.
    if (!source || !pages) return run;
    let changed = false;
    const read = new Set<string>();
    for (const page of crawl.pages) {
      read.add(page.url);
      const before = pages.get(page.url);
      const status = page.status === 'unchanged' && !before ? 'new' : page.status;
      if (status === 'unchanged') {
        run.pagesUnchanged++;
        pages.set(page.url, {
          ...before!,
          etag: page.etag,
          lastModified: page.lastModified,
          links: [...page.links],
          title: page.title || before!.title,
        });
        continue;
      }
      if (before) run.pagesChanged++;
      else run.pagesNew++;
      changed = true;
      pages.set(page.url, {
        sourceId: crawl.sourceId,
        url: page.url,
        title: page.title,
        etag: page.etag,
        lastModified: page.lastModified,
        hash: page.hash,
        links: [...page.links],
        changedAt: crawl.finishedAt,
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
    }
    if (crawl.complete)
      for (const url of pages.keys())
        if (!read.has(url)) {
          pages.delete(url);
          this.sections.delete(`${crawl.sourceId}\n${url}`);
          run.pagesRemoved++;
          changed = true;
        }
    source.lastCrawlAt = crawl.finishedAt;
    source.nextCrawlAt = crawl.nextCrawlAt;
    if (changed) this.version++;
    this.runs.push(run);
    return structuredClone(run);
  }

  async listDocSections() {
    const out: DocSectionRecord[] = [];
    for (const source of this.sources.values())
      for (const url of [...(this.pages.get(source.id)?.keys() ?? [])].sort())
        for (const section of this.sections.get(`${source.id}\n${url}`) ?? [])
          out.push(structuredClone(section));
    return out;
  }

  async docsVersion() {
    return this.version;
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

  async putEmbeddings(model: string, vectors: { id: number; embedding: number[] }[]) {
    const byId = new Map(vectors.map((v) => [v.id, v.embedding]));
    let changed = false;
    for (const list of this.sections.values())
      for (const section of list) {
        const embedding = byId.get(section.id);
        if (!embedding) continue;
        section.embedding = [...embedding];
        section.embeddingModel = model;
        changed = true;
      }
    if (changed) this.version++;
  }

  async docPagesChangedAt(urls: string[]) {
    const wanted = new Set(urls);
    const out = new Map<string, number>();
    for (const pages of this.pages.values())
      for (const page of pages.values())
        if (wanted.has(page.url)) out.set(page.url, Math.max(out.get(page.url) ?? 0, page.changedAt));
    return out;
  }
}
