/**
 * What the service does besides answering requests: maintenance, the fleet lease, the
 * rollup's refresh, the docs' crawl schedule and the webhooks' deliveries. Each duty reaches only the storage roles it works on; `runDuties` puts them
 * on timers (what `serve()` does through `startDuties`).
 */
import { IDEMPOTENCY_WINDOW_MS, TOOL_WAIT_MS, UNUSED_FILE_TTL_MS } from '../contract/limits.js';
import { type Clock, utcDay } from './kernel/clock.js';
import { MAX_RATE_WINDOWS } from './http/rate-limiter.js';
import type { WidgetReleases } from './http/widget-releases.js';
import type { ActivityStore, EndedOrphan, FleetStore, StoresOf } from './storage/types.js';
import type { Log } from './kernel/log.js';
import { type FailedHook, logLostAnswers } from './answers/failure-log.js';

/** Threads one purge statement deletes: a big backlog goes in many short transactions, never one long one. */
export const PURGE_BATCH = 200;
/** Batches one maintenance run deletes at most: the rest waits for the next run, a minute later. */
export const PURGE_BATCHES = 25;

/**
 * Deletes the conversations whose last message is older than `before`, in batches of
 * PURGE_BATCH, until none is left or PURGE_BATCHES ran; returns how many.
 */
export async function purgeConversations(storage: StoresOf<'conversations'>, before: number) {
  let purged = 0;
  for (let batch = 0; batch < PURGE_BATCHES; batch++) {
    const deleted = await storage.conversations.purgeThreads(before, PURGE_BATCH);
    purged += deleted;
    if (deleted < PURGE_BATCH) break;
  }
  return purged;
}

/** How long a webhook's deliveries are listed in the console once they are sent or given up. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

/**
 * Purges expired sessions (the visitors' and the console's), events past retention, spent rate
 * windows, leaked slots, expired challenges, past days' budgets, files no question used for
 * a day (§11), Idempotency-Keys past their day (decision 453), webhook deliveries past their
 * month (decision 616), widget releases no page loads (decision 741) and, with a retention
 * period, conversations past it (decision 603);
 * stops answers that waited too long for tools.
 */
export async function maintain(
  storage: StoresOf<
    | 'conversations'
    | 'directory'
    | 'accounts'
    | 'activity'
    | 'ledger'
    | 'rates'
    | 'gate'
    | 'files'
    | 'notifications'
  >,
  now: number,
  {
    retentionMs,
    conversationRetentionMs = 0,
    maxAnswerMs,
    log,
    failed,
    widgets,
  }: {
    retentionMs: number;
    conversationRetentionMs?: number;
    maxAnswerMs: number;
    log: Log;
    failed?: FailedHook;
    /** The widget releases kept for pinned pages: those no page loads go (decision 741). */
    widgets?: WidgetReleases;
  },
) {
  const sessions = await storage.directory.purgeSessions(now);
  const events = await storage.activity.purgeEvents(now - retentionMs);
  await storage.accounts.purgeExpired(now);
  const ended = await storage.ledger.endStale(now - Math.max(TOOL_WAIT_MS, 2 * maxAnswerMs), now);
  logLostAnswers(log, ended, failed);
  // A slot outlives its answer only when the end failed to say so.
  await storage.ledger.purgeAnswerSlots(now - 2 * maxAnswerMs);
  // Budgets count per UTC day: the days before yesterday are done with.
  await storage.gate.purgeGate(now, utcDay(now) - 1);
  return {
    sessions,
    events,
    answers: ended.length,
    rateWindows: await storage.rates.purgeRateWindows(now, MAX_RATE_WINDOWS),
    files: await storage.files.purgeUnusedFiles(now - UNUSED_FILE_TTL_MS),
    idempotencyKeys: await storage.ledger.purgeAsks(now - IDEMPOTENCY_WINDOW_MS),
    conversations:
      conversationRetentionMs > 0 ? await purgeConversations(storage, now - conversationRetentionMs) : 0,
    deliveries: await storage.notifications.purgeDeliveries(now - DELIVERY_RETENTION_MS),
    widgetReleases: widgets ? await widgets.purge() : 0,
  };
}

/**
 * Renews the instance's lease, then ends the answers of instances whose lease ran out, and says
 * so to the fleet (instances relaying them end their streams from the store); returns how many.
 */
export async function heartbeat(
  fleet: FleetStore,
  answers: { instanceId: string; reaped(ended: EndedOrphan[]): void },
  leaseMs: number,
  clock: Clock,
) {
  await fleet.heartbeat(answers.instanceId);
  const ended = await fleet.reapInstances(leaseMs, clock.now());
  if (ended.length) answers.reaped(ended);
  return ended.length;
}

/** Rebuilds the rollup if no instance did for half the staleness bound; true when this call did. */
export function refreshActivity(activity: ActivityStore, stalenessMs: number, clock: Clock) {
  return activity.refreshActivityOnce(stalenessMs / 2, clock.now());
}

/** The duties of one service, as it runs them. */
export interface Duties {
  maintain(): Promise<Record<string, number>>;
  heartbeat(): Promise<number>;
  refreshActivity(): Promise<boolean>;
  crawlDocs(): Promise<number>;
  deliverNotifications(): Promise<number>;
}

/**
 * Runs the duties on timers (added to `timers`, which the service clears on close), each
 * failure logged by name, the refresh once at once; returns a stop function. While the
 * instance drains, only the heartbeat runs: its lease keeps its answers in flight its own, and
 * the other duties' work is the fleet's (decision 457).
 */
export function runDuties(
  duties: Duties,
  timers: Set<ReturnType<typeof setInterval>>,
  {
    maintainEveryMs,
    leaseMs,
    stalenessMs,
    log,
    draining,
  }: { maintainEveryMs: number; leaseMs: number; stalenessMs: number; log: Log; draining: () => boolean },
): () => void {
  const duty = (name: string, run: () => Promise<unknown>) => () => {
    if (draining() && name !== 'heartbeat') return;
    run().catch((error) =>
      log({ level: 'error', msg: `${name}_failed`, error: error instanceof Error ? error.name : 'unknown' }),
    );
  };
  const every = (ms: number, fn: () => void) => {
    const timer = setInterval(fn, ms);
    (timer as { unref?: () => void }).unref?.();
    timers.add(timer);
  };
  const maintenance = duty('maintenance', async () =>
    log({ level: 'info', msg: 'maintenance', ...(await duties.maintain()) }),
  );
  const lease = duty('heartbeat', async () => {
    const ended = await duties.heartbeat();
    if (ended) log({ level: 'warn', msg: 'dead_instance_answers_ended', answers: ended });
  });
  const refresh = duty('activity_refresh', () => duties.refreshActivity());
  // Whichever instance holds the crawl lease crawls the sources that are due; a minute is fine
  // enough for a schedule counted in hours (and for "Re-crawl now", which crawls at once anyway).
  const crawl = duty('docs_crawl', () => duties.crawlDocs());
  // Every few seconds: a visitor waiting for a person should not wait for a timer.
  const deliver = duty('notifications', () => duties.deliverNotifications());
  every(maintainEveryMs, maintenance);
  every(5_000, deliver);
  every(leaseMs / 3, lease);
  every(stalenessMs / 6, refresh);
  every(60_000, crawl);
  refresh();
  crawl();
  return () => {
    for (const timer of timers) clearInterval(timer);
    timers.clear();
  };
}
