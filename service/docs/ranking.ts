import MiniSearch from 'minisearch';
import { termsOf, tokenize } from './terms.js';
import type { DocsSearch, Hit, Section } from './types.js';

/**
 * Lexical ranking of sections: BM25 (MiniSearch's BM25+, per field) over the page title, the
 * heading path and the text, with the analysis of `terms.ts` and no prefix or fuzzy matching
 * (decision 288). Built in memory from section rows, so every store ranks alike.
 */

export interface Boosts {
  title: number;
  headings: number;
  text: number;
}

/** Chosen on the bench's question set (docs/performance.md), checked on its held-out set. */
export const DEFAULT_BOOSTS: Boosts = { title: 2, headings: 2, text: 1 };

interface Row {
  id: number;
  title: string;
  headings: string;
  text: string;
}

export class SectionIndex {
  private readonly index: MiniSearch<Row>;

  constructor(
    private readonly sections: readonly Section[],
    private readonly boosts: Boosts = DEFAULT_BOOSTS,
  ) {
    this.index = new MiniSearch<Row>({
      fields: ['title', 'headings', 'text'],
      tokenize,
      processTerm: termsOf,
      searchOptions: { prefix: false, fuzzy: false, combineWith: 'OR' },
    });
    this.index.addAll(
      sections.map((section, id) => ({
        id,
        title: section.title,
        headings: [...section.headings, section.keywords ?? ''].join('\n'),
        text: section.text,
      })),
    );
  }

  get size(): number {
    return this.sections.length;
  }

  /** The best sections for `question`, best first, at most `limit`. */
  search(question: string, limit = 20): Hit[] {
    if (!this.sections.length) return [];
    return this.index
      .search(question, { boost: { ...this.boosts } })
      .slice(0, limit)
      .map((result) => ({ section: this.sections[result.id as number], score: result.score }));
  }
}

/**
 * Reciprocal rank fusion of rankings of the same sections (Cormack et al. 2009): each list
 * gives a section 1 / (k + rank); k = 60 as the paper measured. Sections are matched by URL
 * and text, so a section cut in parts keeps its parts apart.
 */
export function fuseByRank(rankings: Hit[][], limit: number, k = 60): Hit[] {
  const fused = new Map<string, Hit>();
  for (const ranking of rankings)
    ranking.forEach((hit, rank) => {
      const key = `${hit.section.url}\n${hit.section.text}`;
      const entry = fused.get(key);
      const score = 1 / (k + rank + 1);
      if (entry) entry.score += score;
      else fused.set(key, { section: hit.section, score });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}

/** A fixed set of sections as a search: the bundled articles, a folder read once, a test's pages. */
export class StaticDocs implements DocsSearch {
  private readonly index: SectionIndex;

  constructor(sections: readonly Section[], boosts?: Boosts) {
    this.index = new SectionIndex(sections, boosts);
  }

  async search(question: string, limit?: number): Promise<Hit[]> {
    return this.index.search(question, limit);
  }
}
