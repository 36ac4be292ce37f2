import { readBounded } from '../kernel/bounded-body.js';
import { deadline } from '../kernel/deadline.js';
import { diversify, fuseByRank, referredTo, type SectionIndex } from './ranking.js';
import type { DocsSearch, Hit, Section } from './types.js';

/**
 * Optional embeddings (decision 290): vectors of the sections from the model server's
 * OpenAI-compatible `/v1/embeddings`, ranked by cosine similarity to the question's and fused
 * with the lexical ranking by reciprocal rank. Without them, or when the server fails, the
 * lexical ranking answers alone: nothing needs a network.
 */

export interface EmbeddingsOptions {
  /** The server's `/v1` URL (`OPENAI_BASE_URL`). */
  baseUrl: string;
  /** `OPENAI_EMBEDDING_MODEL`. */
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
  /** Texts per request. Default 64. */
  batch?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

/** A section's text as it is embedded: where it is, then its start (models read a few thousand characters). */
export const embeddingText = (section: Section): string =>
  `${[section.title, ...section.headings].join(' › ')}\n\n${section.text}`.slice(0, 6_000);

/**
 * The widest vector taken (decision 652): models answer with 384 to 4,096 numbers (OpenAI's
 * largest 3,072); a server that sends more is broken or hostile, and each number is held per
 * section in memory and in the store.
 */
const MAX_DIMENSIONS = 8_192;
/** An answer's bytes at most: each text's vector at the widest, each number written long, and room for the rest. */
const answerLimit = (texts: number) => (1 << 20) + texts * MAX_DIMENSIONS * 32;

export class Embedder {
  private readonly fetch: typeof fetch;
  private readonly url: string;

  constructor(private readonly options: EmbeddingsOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  }

  get model(): string {
    return this.options.model;
  }

  /** One unit vector per text, in order; throws with the server's status when it refuses. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batch = Math.max(1, this.options.batch ?? 64);
    for (let i = 0; i < texts.length; i += batch) {
      const input = texts.slice(i, i + batch);
      const response = await this.post(input, signal);
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new Error(`the embeddings server answered ${response.status}`);
      }
      // Read up to a limit, as the chat stream is (decision 312): a server must not make the service hold what it sends.
      const bytes = await readBounded(response, answerLimit(input.length));
      if (!bytes)
        throw new Error(
          `the embeddings server's answer is over ${answerLimit(input.length).toLocaleString('en')} bytes`,
        );
      const body = JSON.parse(new TextDecoder().decode(bytes)) as {
        data?: { embedding?: unknown; index?: number }[];
      };
      const data = Array.isArray(body?.data) ? body.data : [];
      if (data.length !== input.length)
        throw new Error('the embeddings server sent a wrong number of vectors');
      const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      for (const item of ordered) {
        if (!Array.isArray(item.embedding) || !item.embedding.every((v) => typeof v === 'number'))
          throw new Error('the embeddings server sent a vector that is not a list of numbers');
        if (item.embedding.length > MAX_DIMENSIONS)
          throw new Error(
            `the embeddings server sent a vector of more than ${MAX_DIMENSIONS.toLocaleString('en')} numbers`,
          );
        out.push(unit(item.embedding as number[]));
      }
    }
    return out;
  }

  /**
   * One request, sent again once when it got no answer at all: a model server that closes an
   * idle keep-alive connection as the request goes out (uvicorn's 5 s, Node's) fails it with
   * "other side closed" though it never read it, and embedding the same texts twice is harmless.
   * A timeout or the caller's abort is not retried.
   */
  private async post(input: readonly string[], signal?: AbortSignal): Promise<Response> {
    const send = () =>
      this.fetch(this.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.options.apiKey && { Authorization: `Bearer ${this.options.apiKey}` }),
        },
        body: JSON.stringify({ model: this.options.model, input }),
        // The body is read after this returns: the deadline must outlive it (kernel/deadline.ts).
        signal: deadline(this.options.timeoutMs ?? 30_000, signal),
      });
    try {
      return await send();
    } catch (error) {
      if (signal?.aborted || (error instanceof Error && /abort|timeout/i.test(error.name))) throw error;
      return send();
    }
  }
}

function unit(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** Sections ranked by cosine similarity of their unit vectors to `query`, best first. */
export function nearest(
  query: Float32Array,
  sections: readonly Section[],
  vectors: readonly (Float32Array | null)[],
  limit: number,
): Hit[] {
  const scored: Hit[] = [];
  vectors.forEach((vector, i) => {
    if (!vector || vector.length !== query.length) return;
    let dot = 0;
    for (let j = 0; j < vector.length; j++) dot += vector[j] * query[j];
    scored.push({ section: sections[i], score: dot, match: 0 });
  });
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

/**
 * Lexical and vector rankings fused. A question whose embedding fails (the server down, a
 * timeout) is answered by the lexical ranking alone, and `onError` hears why.
 */
export class HybridDocs implements DocsSearch {
  constructor(
    private readonly lexical: SectionIndex,
    private readonly sections: readonly Section[],
    private readonly vectors: readonly (Float32Array | null)[],
    private readonly embedder: Embedder,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async search(question: string, limit = 20, earlier?: string): Promise<Hit[]> {
    const lexical = this.lexical.rank(question, 100, earlier);
    let query: Float32Array;
    try {
      // A follow-up that refers back is embedded with what it refers to, as its words are searched.
      const referred = referredTo(question, earlier);
      [query] = await this.embedder.embed([referred ? `${referred}\n${question}` : question]);
    } catch (error) {
      this.onError(error);
      return diversify(lexical).slice(0, limit);
    }
    const semantic = nearest(query, this.sections, this.vectors, 100);
    // A section found by both keeps its lexical match, which thresholds compare.
    return diversify(fuseByRank([lexical, semantic], 100)).slice(0, limit);
  }
}
