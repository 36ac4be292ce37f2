import { DocsIndex, asSources } from './docs-index.js';
import type { Agent, AgentInput, AgentOutput, ToolCall } from './types.js';
import type { Article } from './knowledge.js';

export interface OpenAiAgentOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), a vLLM or llama.cpp server. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set; local servers usually need none. */
  apiKey?: string;
  /** The site's documents, retrieved per question. */
  docs: Article[];
  /**
   * Relevance threshold of the retrieval. Default 2, lower than the demo agent's: BM25 scores
   * shrink with a small corpus, and the model is told to say when the documents do not answer.
   */
  minScore?: number;
  /** How many documents go into the prompt. Default 3. */
  topK?: number;
  fetch?: typeof fetch;
}

/** A hostile or broken upstream must not grow memory: no SSE line is longer than this. */
const MAX_LINE = 1 << 20;

const SYSTEM = `You are the documentation assistant of this website. Answer only from the documents below, in Markdown, briefly.
If they do not answer the question, say "I couldn't find that in the docs." and nothing else.
Use a tool when the visitor asks for what it does.`;

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * A model agent over the OpenAI-compatible streaming Chat Completions protocol, with plain
 * fetch: the protocol is a POST and a server-sent event stream, which a client library would
 * only wrap, and fetch keeps the agent runnable wherever the service runs.
 */
export class OpenAiAgent implements Agent {
  private readonly docs: DocsIndex;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiAgentOptions) {
    this.docs = new DocsIndex(options.docs, options.minScore ?? 2);
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async *answer(input: AgentInput): AsyncIterable<AgentOutput> {
    const first = input.rounds.length === 0;
    const step = { id: 'search-1', name: 'search_knowledge_base', summary: 'Searching the docs', num_results: null };
    if (first) yield { type: 'activity', step: { ...step, status: 'started' } };
    const found = this.docs.search(input.message, this.options.topK ?? 3);
    if (first) {
      yield { type: 'activity', step: { ...step, status: 'completed', summary: `${found.length} relevant document(s)`, num_results: found.length } };
      if (found.length) yield { type: 'sources', sources: asSources(found, null) };
      else yield { type: 'uncertain' };
    }

    const response = await this.fetch(`${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(this.options.apiKey && { Authorization: `Bearer ${this.options.apiKey}` }) },
      body: JSON.stringify({
        model: this.options.model,
        stream: true,
        messages: this.messages(input, found),
        ...(input.tools.length && {
          tools: input.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
        }),
      }),
      signal: input.signal,
    });
    if (!response.ok || !response.body) throw new Error(`model answered ${response.status}`);

    const calls: { id: string; name: string; args: string }[] = [];
    for await (const data of serverSentData(response.body)) {
      if (data === '[DONE]') break;
      const delta = (JSON.parse(data) as { choices?: { delta?: ChunkDelta }[] }).choices?.[0]?.delta;
      if (delta?.content) yield { type: 'text', text: delta.content };
      for (const part of delta?.tool_calls ?? []) {
        const call = (calls[part.index ?? 0] ??= { id: '', name: '', args: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.args += part.function.arguments;
      }
    }
    const declared = new Set(input.tools.map((t) => t.name));
    const toolCalls: ToolCall[] = calls.filter((c) => declared.has(c.name)).map((c) => ({ id: c.id || `call_${crypto.randomUUID()}`, name: c.name, arguments: parseArguments(c.args) }));
    if (toolCalls.length) yield { type: 'tool_calls', calls: toolCalls };
  }

  private messages(input: AgentInput, found: Article[]): ChatMessage[] {
    const docs = found.length ? found.map((a) => `## ${a.title}\nURL: ${a.url}\n\n${a.body}`).join('\n\n---\n\n') : '(no document matched this question)';
    const messages: ChatMessage[] = [{ role: 'system', content: `${SYSTEM}\n\n# Documents\n\n${docs}` }];
    for (const m of input.history) if (m.content && m.status !== 'error') messages.push({ role: m.role, content: m.content });
    messages.push({ role: 'user', content: input.message });
    input.rounds.forEach((round, i) => {
      messages.push({
        role: 'assistant',
        content: i === 0 && input.partial ? input.partial : null,
        tool_calls: round.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
      for (const r of round.results) messages.push({ role: 'tool', tool_call_id: r.tool_call_id, content: 'error' in r ? `Error: ${r.error}` : JSON.stringify(r.output ?? null) });
    });
    return messages;
  }
}

interface ChunkDelta {
  content?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The `data:` payloads of a server-sent event stream (multi-line data joined by newlines). */
async function* serverSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (buffer.length > MAX_LINE && !buffer.includes('\n')) throw new Error('model stream line too long');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
    }
    if (data.length) yield data.join('\n');
  } finally {
    void reader.cancel().catch(() => {});
  }
}
