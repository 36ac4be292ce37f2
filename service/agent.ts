import MiniSearch from 'minisearch';
import type { Source } from '../src/api/types.js';
import type { MessageRecord } from './storage.js';
import { ARTICLES, type Article } from './knowledge.js';

export type AgentOutput = { type: 'sources'; sources: Source[] } | { type: 'text'; text: string };

export interface AgentInput {
  message: string;
  /** Earlier messages of the thread, oldest first. */
  history: readonly MessageRecord[];
  signal: AbortSignal;
}

/**
 * What the reference service asks of an agent. A site owner can put a real model behind the
 * same service by implementing this; the service handles framing, storage and aborts.
 */
export interface Agent {
  answer(input: AgentInput): AsyncIterable<AgentOutput>;
}

export interface DemoAgentOptions {
  /** Pause between words, so the demo visibly streams. 0 in tests. */
  wordDelayMs?: number;
  articles?: Article[];
}

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i if in is it its me my of on or so that the this to use using what when where which who why with you your'.split(' '),
);

const NO_MATCH = `I couldn't find anything about that in the agent-chat documentation.

Try asking about **installing the widget**, the **session endpoint**, **theming**, **events**, **conversation history** or **security**.`;

/**
 * Deterministic, offline agent: full-text search (MiniSearch, BM25 with prefix and fuzzy
 * matching) over the bundled docs, answering with the best article and citing the matches.
 */
export class DemoAgent implements Agent {
  private readonly index: MiniSearch<Article>;
  private readonly articles: Map<string, Article>;
  private readonly wordDelayMs: number;

  constructor(options: DemoAgentOptions = {}) {
    const articles = options.articles ?? ARTICLES;
    this.wordDelayMs = options.wordDelayMs ?? 0;
    this.articles = new Map(articles.map((a) => [a.id, a]));
    this.index = new MiniSearch<Article>({
      fields: ['title', 'keywords', 'body'],
      storeFields: ['id'],
      processTerm: (term) => (STOPWORDS.has(term.toLowerCase()) ? null : term.toLowerCase()),
      searchOptions: { boost: { title: 2, keywords: 3 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
    });
    this.index.addAll(articles);
  }

  /** The articles that answer `question`, best first. Exposed for tests and for the bench. */
  search(question: string): Article[] {
    const hits = this.index.search(question);
    if (hits.length === 0) return [];
    // Keep hits close to the best one; weak fuzzy matches on common words are noise.
    const floor = hits[0].score * 0.5;
    return hits.filter((hit) => hit.score >= floor && hit.score >= 2).slice(0, 3).map((hit) => this.articles.get(hit.id)!);
  }

  async *answer({ message, signal }: AgentInput): AsyncIterable<AgentOutput> {
    const matches = this.search(message);
    if (matches.length > 0) {
      yield {
        type: 'sources',
        sources: matches.map((a) => ({ title: a.title, subtitle: 'agent-chat docs', source_url: a.url, source_type: 'documentation' })),
      };
    }
    const [best] = matches;
    const text = best ? `### ${best.title}\n\n${best.body}` : NO_MATCH;
    for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
      if (this.wordDelayMs > 0) await sleep(this.wordDelayMs, signal);
      signal.throwIfAborted();
      yield { type: 'text', text: word };
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
