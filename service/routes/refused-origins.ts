import type { ConsoleRefusedOrigin } from '../../contract/console.js';
import { normalizeOrigin } from '../http/origins.js';
import { isoMicros, utcDay } from '../kernel/clock.js';
import { REFUSALS_PER_INTEGRATION, type StoredRefusal } from '../storage/types.js';
import type { ServiceContext } from './context.js';

/**
 * The origins whose pages a public integration refused lately, so that its owner reads in the
 * console the origin to add (a site builder's embed block runs in a frame on an origin of the
 * builder's, which its owner never sees) or learns that the page has none (a sandboxed frame).
 * Each instance counts them in memory and writes an origin to the store the fleet shares at most
 * once a UTC day, as it logs it, so that a page refused on one instance is listed by the one the
 * console asks, and a script faking origins costs a write per new origin at most (decision 750).
 */
interface Refusal {
  count: number;
  last: number;
  /** How many of `count` the store holds already. */
  written: number;
}

/** The most integrations this instance counts for at once (the store keeps its own bound). */
const INTEGRATIONS = 1_000;

/**
 * The most origins an instance writes for one integration a UTC day: a page refused on a few
 * origins is written whole, while a script faking origins, refused before any rate limit
 * counts it, costs the store that many writes a day and no more.
 */
const REFUSAL_WRITES_A_DAY = 20;

/** One map per service (its directory), as its log lines are: services in one process keep apart. */
const seen = new WeakMap<object, Map<string, Map<string, Refusal>>>();
/** Per service and integration: the UTC day and how many origins it wrote that day. */
const writes = new WeakMap<object, Map<string, { day: number; count: number }>>();

/** Whether this instance may write one more origin of the integration today; counts it if so. */
function mayWrite(directory: object, key: string, day: number): boolean {
  const all = writes.get(directory) ?? new Map<string, { day: number; count: number }>();
  writes.set(directory, all);
  if (!all.has(key) && all.size >= INTEGRATIONS) all.clear();
  const today = all.get(key)?.day === day ? all.get(key)! : { day, count: 0 };
  all.set(key, today);
  if (today.count >= REFUSAL_WRITES_A_DAY) return false;
  today.count += 1;
  return true;
}

const keyOf = (projectId: string, integrationId: string) => `${projectId}\n${integrationId}`;

/**
 * The longest origin a browser sends: a scheme, a DNS name (at most 253 characters) and a port.
 * A longer one is a script's, which put its header's kilobytes into the log and onto the
 * console's page (decision 762).
 */
const ORIGIN_CHARS = 'https://'.length + 253 + ':65535'.length;

/**
 * Notes that a page on `origin` (null: it sent none; `'null'`: it has none) was refused by the
 * integration; logs and writes the first refusal of each origin a day, with what to do (at most
 * `REFUSAL_WRITES_A_DAY` origins an integration a day).
 */
export async function noteRefusedOrigin(
  ctx: ServiceContext<'gate'>,
  projectId: string,
  integrationId: string,
  origin: string | null,
  detail: string,
): Promise<void> {
  // Only what a browser sends: an origin, or "null". Anything else is a script's, and no hint.
  const name = origin === 'null' ? 'null' : origin && normalizeOrigin(origin) === origin ? origin : null;
  if (!name || name.length > ORIGIN_CHARS) return;
  const all = seen.get(ctx.directory) ?? new Map<string, Map<string, Refusal>>();
  seen.set(ctx.directory, all);
  const key = keyOf(projectId, integrationId);
  if (!all.has(key) && all.size >= INTEGRATIONS) all.clear();
  const origins = all.get(key) ?? new Map<string, Refusal>();
  all.set(key, origins);
  const now = ctx.clock.now();
  const before = origins.get(name);
  const count = (before?.count ?? 0) + 1;
  const firstToday = !before || utcDay(before.last) !== utcDay(now);
  origins.delete(name);
  origins.set(name, { count, last: now, written: before?.written ?? 0 });
  if (origins.size > REFUSALS_PER_INTEGRATION) origins.delete(origins.keys().next().value!);
  // Logged as written: a script faking origins gets 20 lines an integration a day, not one a request.
  if (!firstToday || !mayWrite(ctx.directory, key, utcDay(now))) return;
  ctx.log({
    level: 'warn',
    msg: 'public_origin_refused',
    project: projectId,
    integration: integrationId,
    origin: name,
    detail,
  });
  const note = { projectId, integrationId, origin: name, count: count - (before?.written ?? 0), at: now };
  // A hint, not a record: the 403 goes out whether or not the store took it. What it took is
  // marked written on the entry then current (more refusals may have come meanwhile).
  await ctx.storage.gate.noteRefusals(note).then(
    () => {
      const current = origins.get(name);
      if (current) current.written += note.count;
    },
    (error) => ctx.log({ level: 'warn', msg: 'public_origin_refusal_unsaved', error: String(error) }),
  );
}

/**
 * The origins refused lately and still not allowed, the latest first: the fleet's, from the
 * store, with what this instance counted since it last wrote each.
 */
export function refusedOrigins(
  ctx: ServiceContext,
  stored: readonly StoredRefusal[],
  projectId: string,
  integrationId: string,
  allowed: readonly string[],
): ConsoleRefusedOrigin[] {
  const merged = new Map(stored.map((r) => [r.origin, { count: r.count, last: r.last }]));
  for (const [origin, { count, last, written }] of seen
    .get(ctx.directory)
    ?.get(keyOf(projectId, integrationId)) ?? []) {
    const shared = merged.get(origin);
    merged.set(origin, {
      count: (shared?.count ?? 0) + count - (shared ? written : 0),
      last: Math.max(shared?.last ?? last, last),
    });
  }
  return [...merged]
    .filter(([origin]) => !allowed.includes(origin))
    .sort(([, a], [, b]) => b.last - a.last)
    .slice(0, REFUSALS_PER_INTEGRATION)
    .map(([origin, { count, last }]) => ({ origin, count, last_at: isoMicros(last) }));
}
