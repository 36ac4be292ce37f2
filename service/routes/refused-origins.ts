import type { ConsoleRefusedOrigin } from '../../contract/console.js';
import { normalizeOrigin } from '../http/origins.js';
import { isoMicros, utcDay } from '../kernel/clock.js';
import type { ServiceContext } from './context.js';

/**
 * The origins whose pages a public integration refused lately, so that its owner reads in the
 * console the origin to add (a site builder's embed block runs in a frame on an origin of the
 * builder's, which its owner never sees) or learns that the page has none (a sandboxed frame).
 * Memory of this instance only, since it started: a hint, not a record, bounded so that a
 * script faking origins can fill nothing but a short list (decision 715).
 */
interface Refusal {
  count: number;
  last: number;
}

/** The most origins kept per integration, the newest; and the most integrations. */
const PER_INTEGRATION = 10;
const INTEGRATIONS = 1_000;

/** One map per service (its directory), as its log lines are: services in one process keep apart. */
const seen = new WeakMap<object, Map<string, Map<string, Refusal>>>();

const keyOf = (projectId: string, integrationId: string) => `${projectId}\n${integrationId}`;

/**
 * Notes that a page on `origin` (null: it sent none; `'null'`: it has none) was refused by the
 * integration; logs the first refusal of each origin a day, with what to do.
 */
export function noteRefusedOrigin(
  ctx: ServiceContext,
  projectId: string,
  integrationId: string,
  origin: string | null,
  detail: string,
): void {
  // Only what a browser sends: an origin, or "null". Anything else is a script's, and no hint.
  const name = origin === 'null' ? 'null' : origin && normalizeOrigin(origin) === origin ? origin : null;
  if (!name) return;
  const all = seen.get(ctx.directory) ?? new Map<string, Map<string, Refusal>>();
  seen.set(ctx.directory, all);
  const key = keyOf(projectId, integrationId);
  if (!all.has(key) && all.size >= INTEGRATIONS) all.clear();
  const origins = all.get(key) ?? new Map<string, Refusal>();
  all.set(key, origins);
  const now = ctx.clock.now();
  const before = origins.get(name);
  origins.delete(name);
  origins.set(name, { count: (before?.count ?? 0) + 1, last: now });
  if (origins.size > PER_INTEGRATION) origins.delete(origins.keys().next().value!);
  if (!before || utcDay(before.last) !== utcDay(now))
    ctx.log({
      level: 'warn',
      msg: 'public_origin_refused',
      project: projectId,
      integration: integrationId,
      origin: name,
      detail,
    });
}

/** The origins refused lately and still not allowed, the latest first. */
export function refusedOrigins(
  ctx: ServiceContext,
  projectId: string,
  integrationId: string,
  allowed: readonly string[],
): ConsoleRefusedOrigin[] {
  const origins = seen.get(ctx.directory)?.get(keyOf(projectId, integrationId));
  if (!origins) return [];
  return [...origins]
    .filter(([origin]) => !allowed.includes(origin))
    .reverse()
    .map(([origin, { count, last }]) => ({ origin, count, last_at: isoMicros(last) }));
}
