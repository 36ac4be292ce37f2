import { parseArgs } from 'node:util';
import { DEFAULT_DRAIN_SECONDS } from '../shutdown.js';

/**
 * The program's flags and the environment variables beside them: what each is, and how a value
 * is read and checked. A flag wins over its variable; a wrong value throws, naming the flag.
 */

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  project: { type: 'string' },
  integration: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  'public-url': { type: 'string' },
  help: { type: 'boolean' },
  'trust-proxy': { type: 'string' },
  'model-tries': { type: 'string' },
  'model-first-token-timeout': { type: 'string' },
  'model-stall-timeout': { type: 'string' },
  'model-history-tokens': { type: 'string' },
  'model-usage': { type: 'string' },
  'docs-tokens': { type: 'string' },
  'model-request-bytes': { type: 'string' },
  docs: { type: 'string', multiple: true },
  'docs-url': { type: 'string' },
  'docs-exclude': { type: 'string', multiple: true },
  'docs-synonyms': { type: 'string' },
  'model-max-tokens': { type: 'string' },
  earlier: { type: 'string' },
  owner: { type: 'string' },
  format: { type: 'string' },
  start: { type: 'string' },
  end: { type: 'string' },
  text: { type: 'string' },
  only: { type: 'string', multiple: true },
  out: { type: 'string' },
  'drain-seconds': { type: 'string' },
  'allow-private-webhooks': { type: 'boolean' },
  'allow-private-docs': { type: 'boolean' },
  'allow-no-admins': { type: 'boolean' },
  role: { type: 'string' },
} as const;

export const flags = () => parseArgs({ allowPositionals: true, options: OPTIONS });
export type Flags = ReturnType<typeof flags>['values'];
export const env = process.env;
/** A yes-or-no setting from the environment: on when it is `1` or `true`. */
export const envFlag = (name: string) => ['1', 'true'].includes(env[name] ?? '');

/** Where the store is: DATABASE_URL's PostgreSQL, else the embedded one in the data directory. */
export const storeAt = (values: Flags) => ({
  databaseUrl: env.DATABASE_URL || undefined,
  dataDir: values.data ?? env.AGENT_CHAT_DATA ?? '.data/service',
});
export type StoreAt = ReturnType<typeof storeAt>;

/** The project the flags name (`--project`, else proj_local): the one `--docs` feeds and `search` and `test` ask. */
export const flagProject = (values: Flags) => values.project ?? env.AGENT_CHAT_PROJECT ?? 'proj_local';

/** `value` as an http(s) address, or null (URL.canParse: Node 20 has no URL.parse). */
export function httpUrl(value: string): URL | null {
  const url = URL.canParse(value) ? new URL(value) : null;
  return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : null;
}

/** `--trust-proxy`: a hop count or "cloudflare"; `undefined` keeps the default. */
export function proxyHops(value: string | undefined): number | 'cloudflare' | undefined {
  if (value === undefined || value === '' || value === 'cloudflare') return value || undefined;
  if (!/^\d{1,2}$/.test(value) || Number(value) > 16)
    throw new Error(`--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not ${value}.`);
  return Number(value);
}

/** A whole number in [min, max]; `undefined` keeps the default. */
export function whole(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${value}.`);
  return number;
}

/** Seconds (fractions allowed) as milliseconds; `undefined` keeps the default. */
export function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`${name} must be a number of seconds above 0, not ${value}.`);
  return Math.round(number * 1000);
}

/** `--drain-seconds`: 0 (cut at once, as before) to an hour, fractions allowed. */
export function drainSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_DRAIN_SECONDS;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 3600)
    throw new Error(`--drain-seconds must be a number of seconds from 0 to 3600, not ${value}.`);
  return number;
}

/** `undefined` keeps the default, `0` turns the cap off. */
export function wholeNumber(value: string | undefined, name: string) {
  if (value === undefined || value === '') return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) throw new Error(`${name} must be a whole number, not ${value}`);
  return count === 0 ? (false as const) : count;
}

/** `undefined` keeps the default, `0` turns the limit off. */
export function perMinute(value: string | undefined) {
  if (value === undefined || value === '') return undefined;
  const requests = Number(value);
  if (!Number.isInteger(requests) || requests < 0)
    throw new Error(`a rate limit must be a whole number, not ${value}`);
  return requests === 0 ? (false as const) : { requests, windowMs: 60_000 };
}
