/** What the docs room hands to the rest of the service: sections of pages, and what a search finds. */

/** The part of a page under one heading: what the index ranks and a prompt quotes. */
export interface Section {
  /** The section's own address: the page's URL with the heading's `#anchor` when it has one. */
  url: string;
  /** The page's address, without fragment. */
  pageUrl: string;
  /** The page's title. */
  title: string;
  /** The headings from the page's title down to this section; empty for the part under the title. */
  headings: string[];
  /** The section's text as plain Markdown: paragraphs, lists, code blocks, table rows. */
  text: string;
  /** Words visitors use for this part that its text may not ("theme" for theming); ranked as headings. */
  keywords?: string;
}

/** One page as the extractor leaves it. */
export interface ExtractedPage {
  title: string;
  sections: Section[];
  /** Absolute addresses this page links to, without fragments (all of them: the crawler filters). */
  links: string[];
  /** The page's own canonical address when it names one (absolute, without fragment). */
  canonical: string | null;
  /** `<meta name="robots" content="noindex">`: the page is read for its links, not indexed. */
  noindex: boolean;
  /** `<meta name="robots" content="nofollow">`: its links are not followed. */
  nofollow: boolean;
  /** `<meta http-equiv="refresh" content="0; url=…">`: the address the page sends its reader to (absolute). */
  refresh?: string | null;
  /** The page runs scripts: when it shows no text, it may draw its content with them. */
  scripted?: boolean;
}

/** A section a search found. */
export interface Hit {
  section: Section;
  /** What ranked it, higher is better: comparable within one search only. */
  score: number;
  /**
   * How strongly its words match the question's (its BM25 score; 0 when only embeddings found
   * it): what relevance thresholds compare, across searches.
   */
  match: number;
}

/** What the agents ask of the docs: the sections that answer a question, best first. */
/** A page as the index holds it. */
export interface IndexedPage {
  title: string;
  text: string;
  /** Each section's URL, its own heading (the page's title for the lead) and its text with its headings. */
  sections: Array<{ url: string; heading: string; text: string }>;
}

export interface DocsSearch {
  /**
   * The sections that answer `question`, best first. `earlier`: the visitor's previous question in
   * the conversation, whose words help a follow-up find its subject (decision 450).
   */
  search(question: string, limit?: number, earlier?: string): Promise<Hit[]>;
  /** How many sections it holds, where that can change (a library before its first crawl holds none). */
  size?(): Promise<number>;
  /** The words a search adds to `question` (synonyms), for an operator to see why it found what it did. */
  expansions?(question: string): Promise<string[]>;
  /**
   * The question's words (as typed, at most 3) that no section has, nor their synonyms or a
   * near-spelling: what the docs do not mention (decision 822).
   */
  absent?(question: string): Promise<string[]>;
  /**
   * A page's title and text as indexed (its sections in order, with their headings), and its
   * sections; null when it is not.
   */
  page?(url: string): Promise<IndexedPage | null>;
}
