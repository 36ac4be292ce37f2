import { randomId } from '../kernel/ids.js';
import { KNOWLEDGE } from './knowledge.js';
import { StaticDocs } from '../docs/ranking.js';
import { earlierQuestion, firstSearch, sourcesOf } from './docs-prompt.js';
import { STOPWORDS } from '../docs/terms.js';
import type { DocsSearch, Hit } from '../docs/types.js';
import { filePhrasesFor } from './file-phrases.js';
import { phrasesFor } from './phrases.js';
import type { Agent, AgentInput, AgentOutput, ToolCall, ToolSpec } from './types.js';

export interface DemoAgentOptions {
  /** Pause between words, so the demo visibly streams. 0 in tests. */
  wordDelayMs?: number;
  /**
   * The docs it answers from when the service gives the answer none (`AgentInput.docs`); this
   * widget's own articles when neither is there or while they hold no section.
   */
  docs?: DocsSearch;
  /**
   * Match (BM25) score the best section must reach to count as an answer. Measured on the bundled articles
   * (decision 289): on-topic questions match 8.8 and up, off-topic ones 3.1 at most.
   */
  minScore?: number;
}

/** The bundled articles' keywords are their visitors' words: they count more than the text's. */
const KNOWLEDGE_BOOSTS = { title: 2, headings: 3, text: 1 };

/** An extractive answer quotes at most this much of the best section, cut at a paragraph end. */
const QUOTE_CHARS = 1_500;

/** The wire contract's words for a tool the visitor refused (§7). */
const DENIED = 'denied by the visitor';

/**
 * The answer when nothing matches, in `locale` (English by default). The topics it suggests are
 * this widget's articles': on a site's own docs it says only that it found nothing (decision 647).
 */
const noMatch = (locale?: string, ownDocs = false) => {
  const phrases = phrasesFor(locale);
  return ownDocs ? phrases.notFound : `${phrases.notFound}\n\n${phrases.topics}`;
};

/**
 * Deterministic, offline agent: answers by quoting the section of the docs that best matches
 * and cites the matching sections, says so plainly when nothing is relevant enough, and calls
 * a declared client tool when the question asks for it by name ("Open the pricing page" with
 * an `open_page` tool).
 */
export class DemoAgent implements Agent {
  private readonly docs: DocsSearch | null;
  private readonly knowledge = new StaticDocs(KNOWLEDGE, KNOWLEDGE_BOOSTS);
  private readonly wordDelayMs: number;
  private readonly minScore: number;

  constructor(options: DemoAgentOptions = {}) {
    this.docs = options.docs ?? null;
    this.minScore = options.minScore ?? 5;
    this.wordDelayMs = options.wordDelayMs ?? 0;
  }

  /**
   * The sections that answer `question`, best first: those matching at least half as strongly
   * as the best, none when the best is below the threshold (weak matches on common words are noise).
   */
  async search(question: string, docs = this.docs, earlier?: string): Promise<Hit[]> {
    return (await this.find(question, docs, earlier)).hits;
  }

  /**
   * `search`, and whether it searched the site's docs (they hold a section) or this widget's
   * articles. On a site's docs the bar is `minScore`, or on a small site the weight of one of
   * its rarest words (BM25's idf of a word in one section of n): a word's weight shrinks with
   * the number of sections, so a fixed bar set on a manual refused a ten-page site's right
   * section (decision 654).
   */
  private async find(question: string, docs: DocsSearch | null, earlier?: string) {
    const sections = docs ? ((await docs.size?.()) ?? Number.POSITIVE_INFINITY) : 0;
    const own = sections > 0;
    const hits = await (own ? docs! : this.knowledge).search(question, 20, earlier);
    const bar = own ? Math.min(this.minScore, Math.log(1 + (sections - 0.5) / 1.5)) : this.minScore;
    const best = Math.max(0, ...hits.map((hit) => hit.match));
    return { own, hits: best < bar ? [] : hits.filter((hit) => hit.match >= best / 2) };
  }

  /** The search as steps and sources, and the best section as the answer (or what to ask instead). */
  private async *fromDocs(
    message: string,
    locale: string | undefined,
    docs: DocsSearch | undefined,
    earlier: string | undefined,
  ): AsyncGenerator<AgentOutput, string> {
    const phrases = phrasesFor(locale);
    const step = firstSearch(phrases, message);
    yield { type: 'activity', step: { ...step, status: 'started' } };
    const searched = docs ?? this.docs;
    const { hits, own } = await this.find(message, searched, earlier);
    // The words that tell this question from others, when the site's docs never use them: a
    // section that matched on the product's name alone is no answer to them (decision 822).
    const absent = own ? ((await searched?.absent?.(message)) ?? []) : [];
    const sources = sourcesOf(hits);
    const best = hits[0]?.section;
    yield {
      type: 'activity',
      step: {
        ...step,
        status: 'completed',
        summary: phrases.found(sources.length),
        num_results: sources.length,
      },
    };
    if (best) yield { type: 'sources', sources };
    // The source card under the answer names the page and its section: the answer is the quote alone.
    if (!absent.length) return best ? quote(best.text) : noMatch(locale, own);
    const missing = phrases.notMentioned(absent);
    return best ? `${missing}\n\n${phrases.closest}\n\n${quote(best.text)}` : missing;
  }

  async *answer({
    message,
    history,
    tools,
    rounds,
    locale,
    docs,
    signal,
    attachments = [],
  }: AgentInput): AsyncIterable<AgentOutput> {
    const call = rounds.length === 0 ? toolCallFor(message, tools) : undefined;
    if (call) {
      yield { type: 'tool_calls', calls: [call] };
      return;
    }
    const phrases = phrasesFor(locale);
    let text: string;
    if (rounds.length > 0) {
      // Said in the tool's own terms ("I opened the pricing page."), never its wire name.
      const last = rounds.at(-1)!;
      const byId = new Map(last.calls.map((c) => [c.id, c]));
      const failed = last.results.find((r) => 'error' in r);
      const called = (failed && byId.get(failed.tool_call_id)) ?? last.calls[0];
      if (failed && 'error' in failed)
        text =
          failed.error === DENIED ? phrases.toolDenied(called) : phrases.toolFailed(called, failed.error);
      else text = phrases.toolDone(last.calls);
    } else if (!message.trim()) {
      // Files alone: nothing to search for.
      text = receiptOf(attachments, locale);
    } else {
      text = yield* this.fromDocs(message, locale, docs, earlierQuestion(history));
      if (attachments.length) text = `${receiptOf(attachments, locale)}\n\n${text}`;
    }
    const pace = this.wordDelayMs > 0 ? pacer(this.wordDelayMs, signal) : undefined;
    try {
      for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
        if (pace) await pace.wait();
        signal.throwIfAborted();
        yield { type: 'text', text: word };
      }
    } finally {
      pace?.done();
    }
  }
}

/** What the demo agent says of a question's files: which it got, and that it cannot read them. */
function receiptOf(files: NonNullable<AgentInput['attachments']>, locale: string | undefined): string {
  const phrases = filePhrasesFor(locale);
  return `${phrases.receipt(files)}\n\n${phrases.demoCannotRead}`;
}

/** The start of a section's text, whole paragraphs up to `QUOTE_CHARS` (at least the first, cut). */
function quote(text: string): string {
  let out = '';
  for (const block of text.split(/\n\n+/)) {
    if (out && out.length + block.length > QUOTE_CHARS) break;
    out = out ? `${out}\n\n${block}` : block;
  }
  return out.length > QUOTE_CHARS * 2 ? `${out.slice(0, QUOTE_CHARS)}…` : out;
}

/**
 * A tool whose name's words all appear in the question (`open_page` for "Open the pricing
 * page"). Its first string parameter gets the words between the verb and the last name word.
 */
function toolCallFor(message: string, tools: readonly ToolSpec[]): ToolCall | undefined {
  const words: string[] = message.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  for (const tool of tools) {
    const parts = tool.name.toLowerCase().split(/[_-]+/).filter(Boolean);
    if (!parts.length || !parts.every((p) => words.includes(p))) continue;
    const from = words.indexOf(parts[0]) + 1;
    const to = parts.length > 1 ? words.lastIndexOf(parts.at(-1)!) : words.length;
    const target = words
      .slice(from, Math.max(from, to))
      .filter((w) => !STOPWORDS.has(w))
      .join(' ');
    const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: string }>;
    const param = Object.keys(properties).find((key) => properties[key]?.type === 'string');
    return {
      id: randomId('call'),
      name: tool.name,
      arguments: param ? { [param]: target } : {},
    };
  }
  return undefined;
}

/**
 * Pauses of `ms` that an abort cuts short, with one abort listener for all of them: adding and
 * removing a listener for every word was 2.6 % of the service's main thread at 1,000 answers
 * (in Node a listener is an object, a weak reference and a list walk).
 */
function pacer(ms: number, signal: AbortSignal) {
  let wake: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    clearTimeout(timer);
    wake?.();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        wake = resolve;
        timer = setTimeout(resolve, ms);
      }),
    done: () => signal.removeEventListener('abort', onAbort),
  };
}

/** Resolves after `ms`, or rejects when `signal` aborts; removes its listener either way. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
