import type { Agent } from '../agents/types.js';
import { OpenAiAgent, type jsonLog } from '../node.js';
import { type Flags, env, httpUrl, seconds, whole } from './flags.js';

/** The model the environment names (OPENAI_*) and the `--model-*` flags that tune its calls, checked at start. */

/** The model when OPENAI_BASE_URL is set without OPENAI_MODEL. */
const DEFAULT_MODEL = 'gpt-4o-mini';

/** OPENAI_DOCS_SEARCH: 1 (the default) or 0, for a model that handles tools badly. */
function docsSearch(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '1') return true;
  if (value === '0') return false;
  throw new Error(`OPENAI_DOCS_SEARCH must be 1 or 0, not ${value}.`);
}

/** What the start-up line says answers without a model. */
export const DEMO_AGENT =
  'the offline demo agent, which quotes the docs (set OPENAI_BASE_URL and OPENAI_MODEL for a model)';

/** The model server's address, checked at start: a typo would otherwise fail every answer. */
function modelBaseUrl(): URL {
  const value = env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
  const url = httpUrl(value);
  if (!url)
    throw new Error(`OPENAI_BASE_URL must be an http(s) URL, like https://api.openai.com/v1, not ${value}.`);
  return url;
}

/**
 * A model agent when one is configured, and how the start-up line names it (the model and its
 * server, never credentials); null for the offline demo agent.
 */
export function modelAgent(values: Flags): { agent: (log: typeof jsonLog) => Agent; by: string } | null {
  if (!env.OPENAI_BASE_URL && !env.OPENAI_MODEL) return null;
  const server = modelBaseUrl();
  const usage = values['model-usage'] ?? env.AGENT_CHAT_MODEL_USAGE ?? 'on';
  if (usage !== 'on' && usage !== 'off') throw new Error(`--model-usage must be on or off, not ${usage}.`);
  const options = {
    baseUrl: server.href,
    model: env.OPENAI_MODEL || DEFAULT_MODEL,
    apiKey: env.OPENAI_API_KEY,
    vision: env.OPENAI_VISION === '1',
    docsSearch: docsSearch(env.OPENAI_DOCS_SEARCH),
    maxTries: whole('--model-tries', values['model-tries'] ?? env.AGENT_CHAT_MODEL_TRIES, 1, 10),
    firstTokenTimeoutMs: seconds(
      '--model-first-token-timeout',
      values['model-first-token-timeout'] ?? env.AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT,
    ),
    stallTimeoutMs: seconds(
      '--model-stall-timeout',
      values['model-stall-timeout'] ?? env.AGENT_CHAT_MODEL_STALL_TIMEOUT,
    ),
    historyTokens: whole(
      '--model-history-tokens',
      values['model-history-tokens'] ?? env.AGENT_CHAT_MODEL_HISTORY_TOKENS,
      0,
      10_000_000,
    ),
    usage: usage === 'on',
    docsTokens: whole('--docs-tokens', values['docs-tokens'] ?? env.AGENT_CHAT_DOCS_TOKENS, 0, 1_000_000),
    maxRequestBytes: whole(
      '--model-request-bytes',
      values['model-request-bytes'] ?? env.AGENT_CHAT_MODEL_REQUEST_BYTES,
      4_096,
      100 * 1024 * 1024,
    ),
    maxTokens: whole(
      '--model-max-tokens',
      values['model-max-tokens'] ?? env.AGENT_CHAT_MODEL_MAX_TOKENS,
      0,
      10_000_000,
    ),
  };
  return {
    agent: (log) => new OpenAiAgent({ ...options, log }),
    by: `the model ${options.model} at ${server.origin}${server.pathname}`,
  };
}
