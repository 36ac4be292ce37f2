import MiniSearch from 'minisearch';
import type { Source } from '../../contract/types.js';
import type { Article } from './knowledge.js';

export const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i if in is it its me my of on or so that the this to use using what when where which who why with you your tell about please'.split(
    ' ',
  ),
);

/** Full-text search over documentation articles (MiniSearch: BM25, prefix and fuzzy). */
export class DocsIndex {
  private readonly index: MiniSearch<Article>;
  private readonly byId: Map<string, Article>;

  constructor(
    articles: Article[],
    private readonly minScore: number,
  ) {
    this.byId = new Map(articles.map((a) => [a.id, a]));
    this.index = new MiniSearch<Article>({
      fields: ['title', 'keywords', 'body'],
      storeFields: ['id'],
      processTerm: (term) => (STOPWORDS.has(term.toLowerCase()) ? null : term.toLowerCase()),
      searchOptions: { boost: { title: 2, keywords: 3 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
    });
    this.index.addAll(articles);
  }

  /** Articles above the relevance threshold, best first, at most `limit`. */
  search(question: string, limit = 3): Article[] {
    const hits = this.index.search(question);
    if (hits.length === 0 || hits[0].score < this.minScore) return [];
    // Keep hits close to the best one; weak fuzzy matches on common words are noise.
    const floor = Math.max(hits[0].score * 0.5, this.minScore);
    return hits
      .filter((hit) => hit.score >= floor)
      .slice(0, limit)
      .map((hit) => this.byId.get(hit.id)!);
  }
}

export const asSources = (articles: Article[], subtitle: string | null): Source[] =>
  articles.map((a) => ({
    title: a.title,
    subtitle: a.subtitle ?? subtitle,
    source_url: a.url,
    source_type: 'documentation',
  }));
