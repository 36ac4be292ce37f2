import type { Clock } from '../kernel/clock.js';
import type { Log } from '../kernel/log.js';
import type { DocsStore } from '../storage/types.js';
import { type Embedder, HybridDocs } from './embeddings.js';
import { SectionIndex } from './ranking.js';
import { Vocabulary } from './synonyms.js';
import type { DocsSearch, Hit, IndexedPage, Section } from './types.js';

export interface ProjectIndexOptions {
  store: DocsStore;
  clock: Clock;
  embedder?: Embedder;
  /** How long a search trusts the index before asking the store whether it moved. */
  freshnessMs: number;
  log?: Log;
}

/**
 * One project's index in this process's memory, built from the project's stored sections and
 * rebuilt (without blocking searches) when the project's version in the store moves. It holds
 * the project's sections only: what another project's agent searches never reaches it.
 */
export class ProjectIndex implements DocsSearch {
  private index: {
    version: number;
    search: DocsSearch;
    lexical: SectionIndex;
    sections: readonly Section[];
  } | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;

  constructor(
    readonly projectId: string,
    private readonly options: ProjectIndexOptions,
  ) {}

  /** The sections that answer `question`, best first, through the same index every answer uses. */
  async search(question: string, limit = 20, earlier?: string): Promise<Hit[]> {
    const index = await this.current();
    return index ? index.search(question, limit, earlier) : [];
  }

  /**
   * The same, from the index as of the store's version now, waiting for a rebuild when it moved
   * (on this instance or another): what the console shows an owner who has just changed the docs.
   */
  async searchNow(question: string, limit = 20, earlier?: string): Promise<Hit[]> {
    await this.refresh();
    return this.search(question, limit, earlier);
  }

  async size(): Promise<number> {
    await this.current();
    return this.index?.sections.length ?? 0;
  }

  async page(url: string): Promise<IndexedPage | null> {
    await this.current();
    const sections = this.index?.sections.filter((s) => s.pageUrl === url) ?? [];
    if (!sections.length) return null;
    const texts = sections.map((s) => ({
      url: s.url,
      heading: s.headings.at(-1) ?? s.title,
      text: [...s.headings, s.text].join('\n'),
    }));
    return { title: sections[0].title, text: texts.map((s) => s.text).join('\n\n'), sections: texts };
  }

  async expansions(question: string): Promise<string[]> {
    await this.current();
    return this.index?.lexical.expansions(question) ?? [];
  }

  async absent(question: string): Promise<string[]> {
    await this.current();
    return this.index?.lexical.absent(question) ?? [];
  }

  /**
   * Rebuilds the index now, when this instance has just changed the project's docs (a crawl): the
   * next search, a minute later or at once, gets them without waiting out the freshness.
   */
  refresh(): Promise<void> {
    this.checkedAt = this.options.clock.now();
    // A reload already under way may have read the store before the change: one more after it.
    const loading: Promise<void> = (this.loading ?? Promise.resolve())
      .catch(() => {})
      .then(() => this.reload())
      .finally(() => {
        if (this.loading === loading) this.loading = null;
      });
    this.loading = loading;
    return loading;
  }

  /** The index as of the store's version, rebuilt when it moved. */
  private async current(): Promise<DocsSearch | null> {
    const now = this.options.clock.now();
    if (now - this.checkedAt >= this.options.freshnessMs) {
      this.checkedAt = now;
      this.loading ??= this.reload().finally(() => (this.loading = null));
      // The first search waits for the first index; later ones use the one they have.
      if (!this.index) await this.loading;
    }
    return this.index?.search ?? null;
  }

  private async reload() {
    const { store, embedder, log } = this.options;
    const version = await store.docsVersion(this.projectId);
    if (this.index?.version === version) return;
    const [rows, synonyms] = await Promise.all([
      store.listDocSections(this.projectId),
      store.docSynonyms(this.projectId),
    ]);
    const sections: Section[] = rows.map(({ url, pageUrl, title, headings, text }) => ({
      url,
      pageUrl,
      title,
      headings,
      text,
    }));
    const lexical = await SectionIndex.build(sections, undefined, new Vocabulary(synonyms));
    const vectors = rows.map((row) =>
      embedder && row.embeddingModel === embedder.model && row.embedding
        ? Float32Array.from(row.embedding)
        : null,
    );
    const search: DocsSearch =
      embedder && vectors.some(Boolean)
        ? new HybridDocs(lexical, sections, vectors, embedder, (error) =>
            log?.({
              level: 'warn',
              msg: 'docs_question_embedding_failed',
              error: error instanceof Error ? error.message : 'unknown',
            }),
          )
        : { search: async (question, limit, earlier) => lexical.search(question, limit, earlier) };
    this.index = { version, search, lexical, sections };
  }
}
