import MiniSearch, { type Options, type SearchOptions, type SearchResult } from 'minisearch';
import { MAX_SOURCES } from '../../contract/limits.js';
import { placeOf } from './sections.js';
import { Vocabulary, synonymsOf } from './synonyms.js';
import { isIdentifier, terms, termsOf, tokenize } from './terms.js';
import type { DocsSearch, Hit, Section } from './types.js';

/**
 * Lexical ranking of sections (decision 288): BM25 (MiniSearch's BM25+, field by field) over
 * the page title, the heading path and the text, with the analysis of `terms.ts` and no prefix
 * or fuzzy matching. Sections are ranked twice, alone and by their page as a whole, and the two
 * rankings fused: a section of the page that is about the question beats a like section of a
 * page that mentions it in passing; a page is ranked on its lead too, its title and opening
 * words, where it says what it is about (decision 419). A section's score is scaled by how many
 * of the question's words it has (coverage, decision 410), and the best section of each of the
 * first pages comes before a page's second section (diversity, decision 410). Built in memory
 * from section rows, so every store ranks alike.
 */

export interface Boosts {
  title: number;
  headings: number;
  text: number;
}

/**
 * Each field is ranked on its own, so a word of a short title or heading already weighs more
 * than one of a long text; extra boosts measured worse on the bench (docs/performance.md).
 */
export const DEFAULT_BOOSTS: Boosts = { title: 1, headings: 1, text: 1 };

/** A synonym's weight beside the question's own words. */
const SYNONYM_WEIGHT = 0.5;
/** The weight of an earlier question's word in a follow-up: a synonym's, as the visitor did not type it. */
const EARLIER_WEIGHT = SYNONYM_WEIGHT;
/**
 * A follow-up that refers back: a pronoun (it, them, that one), or opening as a continuation (and…,
 * what about…, what if…). English, as the stemmer and stopwords are.
 */
const REFERS_BACK =
  /\b(it|its|they|them|their|that|this|those|these|one|ones|same)\b|^\s*(and|also|but|or|then|so|what about|how about|what if)\b/i;
/** The earlier question's first characters that count: a long paste must not drown the follow-up. */
const EARLIER_CHARS = 300;
/** An identifier's weight, whole, beside the words of the question. */
const IDENTIFIER_WEIGHT = 2;
/**
 * A question's distinct words `absent` looks up at most: each is a search of the index, and a
 * pasted page must not cost hundreds of them.
 */
const MAX_WORDS_CHECKED = 30;
/**
 * Words of a question that are not its subject, beyond the stopwords: a small site's docs may
 * never say "much" or "possible", and "The docs don't mention “much”" would be noise. As terms.
 */
const FILLER = new Set(
  terms(
    'much many long often get got use used using work works working make makes possible able help ' +
      'know thing things something anything everything kind sort like best good better really ' +
      'actually exactly new another still even ever always never already yet let lets see say mean ' +
      'means happen happens instead sure ok okay hi hello hey thanks thank anyone someone anybody ' +
      'somebody question questions wondering wonder',
  ),
);
/** Written without spaces between words: a token of these is a phrase. */
const CJK_TEXT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/**
 * The edits that make a term a near-spelling of an indexed one: one in a term of 4 to 7 letters,
 * two from 8, none under 4 (a short word one letter off is another word: "mac", "map").
 */
const typoDistance = (term: string) => (term.length >= 8 ? 2 : term.length >= 4 ? 1 : false);
/** Sections (and pages) each ranking hands to the fusion. */
const CANDIDATES = 100;
/** Reciprocal rank fusion's constant, as Cormack et al. (2009) measured it. */
const RRF_K = 60;
/**
 * How much a section's share of the question's words scales its score: score × share^0.5, so a
 * section with 2 of 4 words keeps 71 % (a coordination factor, as Lucene's classic scoring had).
 */
const COVERAGE_EXPONENT = 0.5;
/**
 * How much of a page's first section is its lead: about the first paragraph, where a page says
 * what it is for ("venv: creation of virtual environments… isolated"), as Wikipedia's search
 * ranks an article's opening text. Anywhere from 200 to 2,000 measured alike (decision 419).
 */
const LEAD_CHARS = 500;

interface Row {
  id: number;
  title: string;
  headings: string;
  text: string;
  /** A page's title and opening words (pages only). */
  lead?: string;
}

// MiniSearch only reads the list; its type asks for a mutable one.
const processTerm = (term: string) => termsOf(term) as string[] | null;

/** `indexed`: gets the terms of what is indexed, not of what is searched for. */
const options = (fields = ['title', 'headings', 'text'], indexed?: Set<string>): Options<Row> => ({
  fields,
  tokenize,
  processTerm: indexed
    ? (term) => {
        const found = processTerm(term);
        for (const one of found ?? []) indexed.add(one);
        return found;
      }
    : processTerm,
  searchOptions: { prefix: false, fuzzy: false, combineWith: 'OR', processTerm },
});

export class SectionIndex {
  /** Every term of the sections: what `absent` looks a word up in. */
  private readonly terms = new Set<string>();
  private readonly sectionIndex = new MiniSearch<Row>(options(undefined, this.terms));
  private readonly pageIndex = new MiniSearch<Row>(options(['title', 'headings', 'text', 'lead']));
  /** Page number of each section. */
  private pageOf: number[] = [];
  private sections: readonly Section[] = [];

  /**
   * `vocabulary`: the site owner's synonyms (decision 422), added to a question at full weight
   * beside the general ones at half.
   */
  constructor(
    sections: readonly Section[],
    private readonly boosts: Boosts = DEFAULT_BOOSTS,
    private readonly vocabulary = new Vocabulary(),
  ) {
    const { sectionRows, pageRows } = this.rows(sections);
    this.sectionIndex.addAll(sectionRows);
    this.pageIndex.addAll(pageRows);
  }

  /** The same index built in chunks, so a service keeps answering while it indexes thousands of sections. */
  static async build(
    sections: readonly Section[],
    boosts?: Boosts,
    vocabulary?: Vocabulary,
  ): Promise<SectionIndex> {
    const index = new SectionIndex([], boosts, vocabulary);
    const { sectionRows, pageRows } = index.rows(sections);
    // Each chunk holds the event loop, and a page's row is a whole page's text (20 KB on average
    // in the Python manual): 100 at once held every request of the service for 240 ms, 10 for 80.
    await index.sectionIndex.addAllAsync(sectionRows, { chunkSize: 200 });
    await index.pageIndex.addAllAsync(pageRows, { chunkSize: 10 });
    return index;
  }

  /** The rows of both indexes: one per section, and one per page (its sections' text together). */
  private rows(sections: readonly Section[]): { sectionRows: Row[]; pageRows: Row[] } {
    this.sections = sections;
    this.pageOf = [];
    const pages = new Map<string, Row>();
    const sectionRows = sections.map((section, id) => {
      let page = pages.get(section.pageUrl);
      if (!page)
        pages.set(
          section.pageUrl,
          (page = { id: pages.size, title: section.title, headings: '', text: '', lead: lead(section) }),
        );
      this.pageOf[id] = page.id;
      page.headings += `${section.headings.at(-1) ?? ''}\n${section.keywords ?? ''}\n`;
      page.text += `${section.text}\n\n`;
      return {
        id,
        title: section.title,
        headings: [...section.headings, section.keywords ?? ''].join('\n'),
        text: section.text,
      };
    });
    return { sectionRows, pageRows: [...pages.values()] };
  }

  get size(): number {
    return this.sections.length;
  }

  /**
   * The best sections for `question`, best first, at most `limit`, the best section of each of
   * the first pages before any page's second (`diversify`). `score` is the fused rank (for
   * ordering); `match` the section's own BM25 score (how strongly its words match).
   */
  search(question: string, limit = 20, earlier?: string): Hit[] {
    return diversify(this.rank(question, CANDIDATES, earlier)).slice(0, limit);
  }

  /** The words `rank` adds to `question`: the general synonyms, then the owner's. */
  expansions(question: string): string[] {
    return [...new Set(this.expand(question).words)];
  }

  /**
   * The question's words, as typed, that no section has: not the word, nor a synonym of it, nor
   * a near-spelling (one letter off, two in a word of 8 or more: a typo of an indexed word is not
   * absent from the docs). At most `max`, in the question's order; none while the index is
   * empty, as empty docs say nothing about a word (decision 822).
   */
  absent(question: string, max = 3): string[] {
    const absent: string[] = [];
    if (!this.sections.length) return absent;
    const seen = new Set<string>();
    for (const token of tokenize(question)) {
      const own = termsOf(token);
      // Chinese, Japanese and Korean run on without spaces: a token is a phrase, not a word to name.
      if (!own?.length || CJK_TEXT.test(token) || own.every((term) => FILLER.has(term))) continue;
      if (seen.has(own.join(' '))) continue;
      seen.add(own.join(' '));
      if (seen.size > MAX_WORDS_CHECKED) break;
      const words = [token, ...this.expand(token).words];
      if (terms(words.join(' ')).some((term) => this.terms.has(term))) continue;
      // Only a word the docs lack is looked up by near-spelling: a fuzzy search of a word they
      // have would rank every section that has it (a second on a manual's common words).
      if (this.sectionIndex.search(words.join(' '), { fuzzy: typoDistance }).length) continue;
      absent.push(token);
      if (absent.length === max) break;
    }
    return absent;
  }

  /** What the general synonyms and the owner's add to `question`, the owner's terms apart (they weigh fully). */
  private expand(question: string) {
    const general = synonymsOf(question);
    const owners = this.vocabulary.expand(question);
    return { words: [...general.words, ...owners.words], general: general.terms, owners: owners.terms };
  }

  /**
   * The sections for `question` in fused rank order, a page's sections side by side: what fusions
   * take. `earlier`: the visitor's previous question in the conversation (see {@link followUp}).
   */
  rank(question: string, limit = 20, earlier?: string): Hit[] {
    if (!this.sections.length) return [];
    const added = this.expand(question);
    const own = new Set(terms(question));
    const context = followUp(own, question, earlier);
    const query = [question, added.words.join(' '), context.words.join(' ')].filter(Boolean).join('\n');
    // A name typed exactly (`UnicodeDecodeError`, `os.path.join`) is what the visitor means.
    const names = new Set(
      tokenize(question)
        .filter(isIdentifier)
        .map((token) => token.toLowerCase()),
    );
    const search: SearchOptions = {
      boost: { ...this.boosts },
      boostTerm: (term) =>
        added.owners.has(term)
          ? 1
          : added.general.has(term)
            ? SYNONYM_WEIGHT
            : names.has(term)
              ? IDENTIFIER_WEIGHT
              : context.terms.has(term)
                ? EARLIER_WEIGHT
                : 1,
    };
    const pageRank = new Map(
      this.pageIndex
        .search(query, search)
        .slice(0, CANDIDATES)
        .map((result, rank) => [result.id as number, rank]),
    );
    return byCoverage(this.sectionIndex.search(query, search), own)
      .slice(0, CANDIDATES)
      .map(({ result }, rank) => {
        const page = pageRank.get(this.pageOf[result.id as number]);
        return {
          section: this.sections[result.id as number],
          score: 1 / (RRF_K + rank + 1) + (page === undefined ? 0 : 1 / (RRF_K + page + 1)),
          match: result.score,
        };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}

/**
 * What of the visitor's earlier question a follow-up refers to (decision 450): its first
 * characters when the question refers back ("how do I skip one of them?"), else nothing, so a
 * question that changes the subject ("what is a lambda?") is searched on its own words.
 */
export function referredTo(question: string, earlier = ''): string {
  return REFERS_BACK.test(question) ? earlier.slice(0, EARLIER_CHARS) : '';
}

/**
 * What a follow-up adds to its search: the earlier question's words it lacks (as typed, since
 * the query is analysed again), each at a synonym's weight, below the question's own words.
 */
function followUp(own: ReadonlySet<string>, question: string, earlier?: string) {
  const words = [...new Set(tokenize(referredTo(question, earlier)))].filter((word) =>
    termsOf(word)?.some((term) => !own.has(term)),
  );
  const terms = new Set(words.flatMap((word) => termsOf(word) ?? []).filter((term) => !own.has(term)));
  return { words, terms };
}

/** A page's lead, from its first section: the title and the opening words, cut at a word's end. */
function lead(first: Section): string {
  const end = first.text.lastIndexOf(' ', LEAD_CHARS);
  const text = first.text.length > LEAD_CHARS ? first.text.slice(0, end > 0 ? end : LEAD_CHARS) : first.text;
  return `${first.title}\n${text}`;
}

/**
 * Section results reordered by their BM25 score scaled by the share of the question's own words
 * (`own`, synonyms not counted) they have: many small sections match one rare word strongly,
 * and the one that has "file" and "exists" and "open" is likelier the answer than one that
 * says "open" ten times. A question of one word is left as it is.
 */
function byCoverage(results: SearchResult[], own: ReadonlySet<string>): { result: SearchResult }[] {
  const scored = results.map((result) => ({ result, score: result.score }));
  if (own.size < 2) return scored;
  for (const entry of scored) {
    const has = entry.result.queryTerms.filter((term) => own.has(term)).length;
    // A section found through synonyms only has none of the question's words: half of one.
    entry.score *= (Math.max(has, 0.5) / own.size) ** COVERAGE_EXPONENT;
  }
  return scored.sort((a, b) => b.score - a.score);
}

/**
 * The best section of each of the first `pages` pages first, then the rest in rank order: the
 * sources an answer cites are one per page, and the prompt's budget would otherwise go to the
 * sections of the first page or two (decision 410). The sections moved behind are scaled down
 * together, below the last page's best, so scores stay in the order shown (an operator's
 * `search` lists them): a page's second section counts for less than another page's best.
 */
export function diversify(hits: readonly Hit[], pages = MAX_SOURCES): Hit[] {
  const seen = new Set<string>();
  const first: Hit[] = [];
  const rest: Hit[] = [];
  for (const hit of hits)
    if (seen.size < pages && !seen.has(placeOf(hit.section))) {
      seen.add(placeOf(hit.section));
      first.push(hit);
    } else rest.push(hit);
  const floor = Math.min(...first.map((hit) => hit.score));
  const top = Math.max(...rest.map((hit) => hit.score));
  const scale = top > floor ? floor / top : 1;
  return [...first, ...(scale === 1 ? rest : rest.map((hit) => ({ ...hit, score: hit.score * scale })))];
}

/** A fixed set of sections as a search: the bundled articles, a folder read once, a test's pages. */
export class StaticDocs implements DocsSearch {
  private readonly index: SectionIndex;

  constructor(sections: readonly Section[], boosts?: Boosts, vocabulary?: Vocabulary) {
    this.index = new SectionIndex(sections, boosts, vocabulary);
  }

  async search(question: string, limit?: number, earlier?: string): Promise<Hit[]> {
    return this.index.search(question, limit, earlier);
  }

  async expansions(question: string): Promise<string[]> {
    return this.index.expansions(question);
  }

  async absent(question: string): Promise<string[]> {
    return this.index.absent(question);
  }

  async size(): Promise<number> {
    return this.index.size;
  }
}

/**
 * Reciprocal rank fusion of rankings of the same sections (Cormack et al. 2009): each list
 * gives a section 1 / (k + rank). Sections are matched by URL and text, so the parts of a
 * section cut in parts stay apart; a section keeps the best lexical `match` it was given.
 */
export function fuseByRank(rankings: Hit[][], limit: number, k = RRF_K): Hit[] {
  const fused = new Map<string, Hit>();
  for (const ranking of rankings)
    ranking.forEach((hit, rank) => {
      const key = `${hit.section.url}\n${hit.section.text}`;
      const entry = fused.get(key);
      const score = 1 / (k + rank + 1);
      if (entry) {
        entry.score += score;
        entry.match = Math.max(entry.match, hit.match);
      } else fused.set(key, { section: hit.section, score, match: hit.match });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}
