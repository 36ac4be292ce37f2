import type { ContentPart } from './attachments.js';
import { SEPARATOR, fitSections, sectionBlock } from './docs-prompt.js';
import type { Hit } from '../docs/types.js';
import { SEARCH_TOOL } from './openai-search.js';
import { fitHistory, jsonBytes, utf8Bytes } from './history-budget.js';
import { type Phrases, agentLanguage } from './phrases.js';
import { AgentError, type AgentInput, type ToolSpec } from './types.js';

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The model agent's options a request is built from. */
export interface RequestOptions {
  model: string;
  usage?: boolean;
  historyTokens?: number;
  docsTokens?: number;
  maxRequestBytes?: number;
  /** `max_tokens` of each call; 0 sends none. Default 8,192. */
  maxTokens?: number;
}

const DEFAULT_MAX_TOKENS = 8_192;

const NONE = '(no document matched this question)';

/**
 * The Chat Completions request for one model call, at most `maxRequestBytes` (default 64 KiB):
 * the instructions, the question, this answer's tool rounds and the model's own `searches` (the
 * tool, its calls and outputs) always go (tool outputs cut when they alone are over); the best sections that fit the document budget come next, then the
 * newest earlier turns that fit what is left. `found`: the sections that went in. The question's
 * images (`question`'s `image_url` parts) ride on top of the limit: their bytes have their own
 * budget (the agent's `imageBytes`), and a screenshot must not push the documents out.
 */
export function requestOf(
  input: AgentInput,
  hits: readonly Hit[],
  phrases: Phrases,
  options: RequestOptions,
  question: string | ContentPart[] = input.message,
  searches: { tools: readonly ToolSpec[]; messages: readonly ChatMessage[] } = { tools: [], messages: [] },
): { body: string; found: Hit[] } {
  const max = options.maxRequestBytes ?? 64 * 1024;
  const system = `${systemPrompt(input.locale, phrases, searches.tools.length > 0)}\n\n# Documents\n\n`;
  // Measured with the images left out; the request that goes carries them.
  const sized = withoutImages(question);
  const tools = [...input.tools, ...searches.tools];
  const body = (docs: string, history: ChatMessage[], tail: ChatMessage[], asked = sized) =>
    JSON.stringify({
      model: options.model,
      stream: true,
      ...(options.usage !== false && { stream_options: { include_usage: true } }),
      ...((options.maxTokens ?? DEFAULT_MAX_TOKENS) > 0 && {
        max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      }),
      messages: [
        { role: 'system', content: system + docs },
        ...history,
        { role: 'user', content: asked },
        ...tail,
      ],
      ...(tools.length && {
        tools: tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
      }),
    });
  // The model's own searches go after the page's rounds, and are cut with them as a last resort.
  const rounds = [...roundsOf(input), ...searches.messages];
  let tail = rounds;
  let room = max - utf8Bytes(body(NONE, [], tail));
  if (room < 0) {
    tail = cutToolOutputs(rounds, -room);
    room = max - utf8Bytes(body(NONE, [], tail));
    if (room < 0) throw tooLarge();
  }
  const { docs, found, left } = documents(hits, options.docsTokens ?? 6_000, room + jsonBytes(NONE));
  const earlier = input.history
    .filter((m) => (m.content || m.attachments?.length) && m.status !== 'error')
    .map((m) => ({ role: m.role, content: withFileNames(m.content, m.attachments) }));
  const history = fitHistory(earlier, options.historyTokens ?? 8_000, left);
  return { body: body(docs, history, tail, question), found };
}

/** The question as it counts against the request limit: its images' data left out. */
function withoutImages(question: string | ContentPart[]): string | ContentPart[] {
  if (typeof question === 'string') return question;
  return question.map((part) => (part.type === 'image_url' ? { ...part, image_url: { url: '' } } : part));
}

/** An earlier question names its files: they went with it, and are not sent again. */
function withFileNames(content: string, files: AgentInput['history'][number]['attachments']): string {
  if (!files?.length) return content;
  return `${content}\n\n(Files attached to this question, not shown again: ${files.map((f) => f.name).join(', ')})`.trim();
}

const tooLarge = () =>
  new AgentError(
    'This question is too long for the assistant.',
    'model_request_too_large',
    "the question, the page's tools and their results alone are over the request limit: raise AGENT_CHAT_MODEL_REQUEST_BYTES",
  );

/**
 * The documents part of the instructions: the best sections within `tokens` whose blocks fit in
 * `room` bytes (as JSON), and the bytes left after them.
 */
function documents(
  hits: readonly Hit[],
  tokens: number,
  room: number,
): { docs: string; found: Hit[]; left: number } {
  const found: Hit[] = [];
  const blocks: string[] = [];
  let left = room;
  for (const hit of fitSections(hits, tokens)) {
    const block = sectionBlock(hit);
    const cost = jsonBytes(blocks.length ? SEPARATOR + block : block);
    if (cost > left) continue;
    found.push(hit);
    blocks.push(block);
    left -= cost;
  }
  if (!blocks.length) return { docs: NONE, found, left: left - jsonBytes(NONE) };
  return { docs: blocks.join(SEPARATOR), found, left };
}

/** This answer's tool rounds as messages: the calls, then what each returned. */
function roundsOf(input: AgentInput): ChatMessage[] {
  const messages: ChatMessage[] = [];
  input.rounds.forEach((round, i) => {
    messages.push({
      role: 'assistant',
      content: i === 0 && input.partial ? input.partial : null,
      tool_calls: round.calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    });
    for (const r of round.results)
      messages.push({
        role: 'tool',
        tool_call_id: r.tool_call_id,
        content: 'error' in r ? `Error: ${r.error}` : JSON.stringify(r.output ?? null),
      });
  });
  return messages;
}

/**
 * Tool outputs cut so that the messages shrink by at least `excess` bytes: the longest outputs
 * lose their ends first, each keeping at least its first 1,000 characters.
 */
function cutToolOutputs(messages: ChatMessage[], excess: number): ChatMessage[] {
  const MARK = ' … (cut: too long for the model request)';
  let left = excess;
  const order = messages
    .map((m, i) => ({ i, size: m.role === 'tool' ? jsonBytes(m.content) : 0 }))
    .filter((x) => x.size > 1_000)
    .sort((a, b) => b.size - a.size);
  const out = [...messages];
  for (const { i, size } of order) {
    if (left <= 0) break;
    const m = out[i] as { role: 'tool'; tool_call_id: string; content: string };
    // Characters cost 1 to 6 bytes as JSON: cut by bytes, measured again after.
    let keep = Math.max(1_000, m.content.length - left - MARK.length);
    let content = m.content.slice(0, keep) + MARK;
    while (jsonBytes(content) > size - Math.min(left, size - 1_000) && keep > 1_000) {
      keep = Math.max(1_000, Math.floor(keep * 0.9));
      content = m.content.slice(0, keep) + MARK;
    }
    left -= size - jsonBytes(content);
    out[i] = { ...m, content };
  }
  return out;
}

/** The instructions, in the visitor's language when the chat call named one. */
function systemPrompt(locale: string | undefined, phrases: Phrases, search: boolean): string {
  const known =
    locale !== undefined &&
    agentLanguage(locale) === phrases.language &&
    phrases.language === locale.split('-')[0].toLowerCase();
  const notFound =
    locale === undefined || known
      ? `say "${phrases.notFound}" and nothing else`
      : 'say in one short sentence that the documents do not cover it, and nothing else';
  const lines = [
    'You are the documentation assistant of this website. Answer only from the documents below, in Markdown, briefly.',
    `If they do not answer the question, ${notFound}.`,
    'Use a tool when the visitor asks for what it does.',
  ];
  if (search)
    lines.splice(
      1,
      0,
      `When they do not answer it, search the documentation with the ${SEARCH_TOOL} tool first, in the words the manual itself would use, and answer from what it returns.`,
    );
  if (locale !== undefined)
    lines.push(
      `The visitor reads ${languageName(locale)} (${locale}): write your answer in that language, whatever the language of the documents.`,
    );
  return lines.join('\n');
}

function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}
