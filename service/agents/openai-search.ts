/**
 * The model's own search of the docs (decisions 472-476): a function tool the service offers and
 * runs itself, so a model that knows the manual's words ("context manager" for "with block") can
 * look again when the sections it was given do not answer. Never a browser round.
 */
import { blocksOf, firstSearch, sourcesOf } from './docs-prompt.js';
import type { ChatMessage } from './openai-prompt.js';
import type { CallParts } from './openai-stream.js';
import type { Phrases } from './phrases.js';
import type { AgentOutput } from './types.js';
import type { DocsSearch, Hit } from '../docs/types.js';

/** The tool's name: the service's own, named by role. A page tool of this name wins (decision 474). */
export const SEARCH_TOOL = 'search_docs';
/** Searches one answer may make; then the tool is no longer offered. */
const MAX_SEARCHES = 2;
/** A longer query is cut here: a search is for words, not pasted pages. */
const MAX_QUERY = 300;

export const searchToolSpec = {
  name: SEARCH_TOOL,
  description:
    "Searches this website's documentation again. Use it when the documents you were given do not answer the question: search with the words the manual itself would use (its names for features, commands, settings), not the visitor's. Returns the best sections.",
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'The words to search for, in the manual’s own terms.' },
    },
    required: ['query'],
  },
} as const;

export interface SearchOptions {
  /** The answer's docs; none: the tool is not offered. */
  docs: DocsSearch | undefined;
  /** Off for a model that handles tools badly (OPENAI_DOCS_SEARCH=0). */
  enabled: boolean;
  /** The page's own tools' names: one named like the search wins, and the search is not offered. */
  pageTools: readonly string[];
  /** A run after a browser pause searches no more (decision 475). */
  firstRun: boolean;
  /** Match score the best section must reach for a search to count as finding anything. */
  minScore: number;
  /** Estimated tokens all sections of one request may take (the document budget). */
  docsTokens: number;
  /** Bytes one request may take. */
  maxRequestBytes: number;
}

/**
 * The searches of one answer's first run: what the model asked, what it was given (as the
 * messages of the next request) and the sections it found, for the sources.
 */
export class ModelSearches {
  /** The assistant calls and the tool outputs, in order: the tail of every later request. */
  readonly messages: ChatMessage[] = [];
  /** Sections given to the model, search by search, best first within each. */
  readonly hits: Hit[] = [];
  /** Estimated tokens the searches' sections take: the prompt's documents have the rest. */
  tokens = 0;
  private count = 0;

  constructor(private readonly options: SearchOptions) {}

  /** Whether the next model call is offered the tool. */
  get offered(): boolean {
    const { docs, enabled, pageTools, firstRun } = this.options;
    return (
      Boolean(docs) && enabled && firstRun && !pageTools.includes(SEARCH_TOOL) && this.count < MAX_SEARCHES
    );
  }

  /**
   * Runs the model's search calls of one reply (`text`: what it said before them), each shown
   * as a step; a call past the limit, or whose query is not one, is answered with an error.
   */
  async *run(calls: readonly CallParts[], text: string, phrases: Phrases): AsyncGenerator<AgentOutput, void> {
    const ids = calls.map((c) => c.id || `call_${crypto.randomUUID()}`);
    this.messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c, i) => ({
        id: ids[i],
        type: 'function',
        // Sent back as read, so a 1 MiB argument does not ride along in every later request.
        function: { name: c.name, arguments: argumentsOf(c.args) },
      })),
    });
    for (const [i, call] of calls.entries()) {
      const content = yield* this.one(call.args, phrases);
      this.messages.push({ role: 'tool', tool_call_id: ids[i], content });
    }
  }

  /** One search call: the tool output the model reads. */
  private async *one(args: string, phrases: Phrases): AsyncGenerator<AgentOutput, string> {
    this.count += 1;
    if (this.count > MAX_SEARCHES) return `Error: no more searches in this answer (at most ${MAX_SEARCHES}).`;
    const query = queryOf(args);
    if (typeof query !== 'string') return `Error: ${query.error}`;
    const step = { id: `search-${this.count + 1}`, name: SEARCH_TOOL, summary: phrases.searched(query) };
    const hits = (await this.options.docs?.search(query, 40)) ?? [];
    const relevant = hits.some((hit) => hit.match >= this.options.minScore) ? hits : [];
    // Each search has a third of the document budget and a quarter of the request's bytes: two
    // searches leave the question's sections a third, and the rest of the request half its room.
    const { text, found, tokens } = blocksOf(
      relevant,
      Math.floor(this.options.docsTokens / (MAX_SEARCHES + 1)),
      Math.floor(this.options.maxRequestBytes / (MAX_SEARCHES + 2)),
    );
    this.hits.push(...found);
    this.tokens += tokens;
    yield { type: 'activity', step: { ...step, status: 'completed', num_results: found.length } };
    return found.length ? text : '(no document matched this search)';
  }
}

/** A search call's arguments as the next request repeats them: the query as searched, else none. */
function argumentsOf(args: string): string {
  const query = queryOf(args);
  return typeof query === 'string' ? JSON.stringify({ query }) : '{}';
}

/** The query of a call's arguments, cut to MAX_QUERY characters; or why there is none. */
export function queryOf(args: string): string | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(args || '{}');
  } catch {
    return { error: 'the arguments are not JSON; call search_docs with {"query": "words to search for"}.' };
  }
  const query = value && typeof value === 'object' ? (value as { query?: unknown }).query : undefined;
  if (typeof query !== 'string' || !query.trim())
    return { error: 'the query is empty; call search_docs with {"query": "words to search for"}.' };
  const words = query.replace(/\s+/g, ' ').trim();
  return words.length <= MAX_QUERY ? words : words.slice(0, MAX_QUERY).replace(/[\ud800-\udbff]$/, '');
}

/**
 * What an answer's first run cites (decision 473): once, just before its first text (or at its
 * end when it has none), the pages of the model's own searches first, then those of the
 * question's sections; uncertain when neither found anything. A run after a pause cites nothing.
 */
export class Citation {
  /** The run has text of its own. */
  said = false;
  private found: Hit[] = [];
  private done: boolean;

  constructor(
    firstRun: boolean,
    private readonly searches: ModelSearches,
  ) {
    this.done = !firstRun;
  }

  /** The question's sections that went into the first request, shown as the first step's end. */
  *retrieved(found: Hit[], phrases: Phrases, question: string): Generator<AgentOutput, void> {
    this.found = found;
    if (this.done) return;
    const step = firstSearch(phrases, question);
    yield {
      type: 'activity',
      step: { ...step, status: 'completed', summary: phrases.found(found.length), num_results: found.length },
    };
  }

  /** The sources, or that nothing matched: once. */
  *sources(): Generator<AgentOutput, void> {
    if (this.done) return;
    this.done = true;
    const hits = [...this.searches.hits, ...this.found];
    if (hits.length) yield { type: 'sources', sources: sourcesOf(hits) };
    else yield { type: 'uncertain' };
  }

  /** A model call's outputs, with the sources before its first text. */
  async *beforeText<T>(outputs: AsyncGenerator<AgentOutput, T>): AsyncGenerator<AgentOutput, T> {
    try {
      for (;;) {
        const next = await outputs.next();
        if (next.done) return next.value;
        if (next.value.type === 'text') yield* this.sources();
        yield next.value;
      }
    } finally {
      await outputs.return(undefined as T);
    }
  }
}
