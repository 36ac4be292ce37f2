import { LocalSignals } from '../local-signals.js';
import type { SqlClient } from '../sql-client.js';
import { type FleetStore, LOST_ANSWER, SIGNALS_LOST } from '../types.js';
import { DB_NOW, ORPHAN_ENDS, toEndedOrphan } from './rows.js';
import { fleetKey, seal, unseal } from './sealed-signals.js';

/**
 * A message's text per NOTIFY payload: sealed (nonce, tag, base64) it stays under the 8,000
 * bytes NOTIFY takes; longer messages travel in fragments.
 */
const MAX_PAYLOAD_BYTES = 5_800;
/** Fragments of one message: 512 carry about a million characters, past the longest snapshot. */
const MAX_FRAGMENTS = 512;
/** Messages being put together at once; past it the oldest is dropped (and counted lost). */
const MAX_ASSEMBLING = 32;
/** Payloads waiting to be opened; past it they are dropped and subscribers told signals were lost. */
const MAX_PENDING = 512;

let fragmentIds = 0;

/** One NOTIFY payload per message, or numbered fragments of at most MAX_PAYLOAD_BYTES. */
function payloads(message: string): string[] {
  if (message.length * 3 < MAX_PAYLOAD_BYTES || new TextEncoder().encode(message).length < MAX_PAYLOAD_BYTES)
    return [`=${message}`];
  const pieces: string[] = [];
  // Characters, not bytes: at most 3 UTF-8 bytes per UTF-16 unit, and a pair is never split.
  const size = Math.floor((MAX_PAYLOAD_BYTES - 64) / 3);
  for (let at = 0; at < message.length;) {
    let end = Math.min(message.length, at + size);
    const last = message.charCodeAt(end - 1);
    if (end < message.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(message.slice(at, end));
    at = end;
  }
  const id = `${Date.now().toString(36)}.${(fragmentIds++).toString(36)}.${Math.random().toString(36).slice(2, 8)}`;
  return pieces.map((piece, i) => `+${id} ${i} ${pieces.length}\n${piece}`);
}

/**
 * Puts messages back together from their payloads, holding at most MAX_ASSEMBLING of them and
 * MAX_FRAGMENTS pieces each: what a payload can make it allocate is bounded.
 */
class Assembly {
  private readonly parts = new Map<string, { count: number; pieces: string[] }>();

  constructor(private readonly onMessage: (message: string) => void) {}

  take(payload: string): void {
    if (payload[0] === '=') return this.onMessage(payload.slice(1));
    // `+<id> <index> <count>\n<text>`: the pieces of one message, from one publisher, in order.
    const newline = payload.indexOf('\n');
    if (payload[0] !== '+' || newline < 0 || newline > 80) return;
    const [id, index, count] = payload.slice(1, newline).split(' ');
    const total = Number(count);
    if (!Number.isInteger(total) || total < 2 || total > MAX_FRAGMENTS) return;
    const held = this.parts.get(id) ?? { count: total, pieces: [] };
    if (Number(index) !== held.pieces.length || held.count !== total) return void this.parts.delete(id);
    held.pieces.push(payload.slice(newline + 1));
    if (held.pieces.length < total) {
      if (!this.parts.has(id) && this.parts.size >= MAX_ASSEMBLING)
        this.parts.delete(this.parts.keys().next().value!);
      return void this.parts.set(id, held);
    }
    this.parts.delete(id);
    this.onMessage(held.pieces.join(''));
  }

  clear(): void {
    this.parts.clear();
  }
}

/** The fleet in SQL: leases in `instances` on the database's clock, signals by LISTEN/NOTIFY. */
export class SqlFleetStore implements FleetStore {
  /** In-process signals where no other process shares the database. */
  private readonly local = new LocalSignals();
  /** Messages waiting to be published, and the one publishing statement in flight (order is kept). */
  private outbox: string[] = [];
  private publishing: Promise<void> | null = null;
  /** Who hears this instance's LISTEN connection, opened for the first and closed after the last. */
  private readonly subscribers = new Set<(message: string) => void>();
  private listening: Promise<() => Promise<void>> | null = null;

  /** The key signals are sealed with (read once; again after a failure). */
  private sealing: Promise<CryptoKey> | null = null;

  constructor(
    private readonly db: SqlClient,
    /** The fleet's NOTIFY channel: one per schema, so fleets on one database stay apart. */
    private readonly channel: string,
  ) {}

  private key(): Promise<CryptoKey> {
    return (this.sealing ??= fleetKey(this.db).catch((error: unknown) => {
      this.sealing = null;
      throw error;
    }));
  }

  async heartbeat(instanceId: string) {
    await this.db.query(
      `INSERT INTO instances (id, started_at, seen_at) VALUES ($1, ${DB_NOW}, ${DB_NOW})
       ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
      [instanceId],
    );
  }

  async retireInstance(instanceId: string) {
    await this.db.query('DELETE FROM instances WHERE id = $1', [instanceId]);
  }

  async reapInstances(leaseMs: number, now: number) {
    // The row lock and the re-check of `ended`'s WHERE after it make each end (and its event)
    // once: a reaper that comes second finds the answer no longer streaming on that instance.
    const { rows } = await this.db.query(
      `WITH dead AS (DELETE FROM instances WHERE seen_at < ${DB_NOW} - $1 RETURNING id),
       orphans AS (
         SELECT id, instance_id, counted_session, counted_integration FROM messages WHERE status = 'streaming' AND instance_id IS NOT NULL
           AND (instance_id IN (SELECT id FROM dead) OR instance_id NOT IN (SELECT id FROM instances))),
       freed AS (DELETE FROM answer_slots WHERE instance_id IN (SELECT id FROM dead) OR answer_id IN (SELECT id FROM orphans)),
       ended AS (UPDATE messages m SET status = CASE WHEN m.stop_requested THEN 'stopped' ELSE 'error' END, instance_id = NULL, updated_at = $2,
         failure_code = CASE WHEN m.stop_requested THEN NULL ELSE $3 END, failure_message = CASE WHEN m.stop_requested THEN NULL ELSE $4 END,
         failure_reason = CASE WHEN m.stop_requested THEN NULL ELSE $5 END,
         counted_session = NULL, counted_integration = NULL
         FROM orphans o WHERE m.id = o.id AND m.status = 'streaming' AND m.instance_id = o.instance_id
         RETURNING m.id, m.thread_id, m.status, o.counted_session, o.counted_integration),
       ${ORPHAN_ENDS('$2::bigint')}`,
      [leaseMs, now, LOST_ANSWER.code, LOST_ANSWER.message, LOST_ANSWER.reason],
    );
    return rows.map(toEndedOrphan);
  }

  /**
   * Every subscriber of this store shares one LISTEN connection, and each payload is opened once
   * for all of them (the live answers and the directory's session cache both listen).
   */
  async subscribe(onMessage: (message: string) => void) {
    if (!this.db.listen) return this.local.subscribe(onMessage);
    this.subscribers.add(onMessage);
    try {
      await (this.listening ??= this.listen());
    } catch (error) {
      this.subscribers.delete(onMessage);
      this.listening = null;
      throw error;
    }
    return async () => {
      if (!this.subscribers.delete(onMessage) || this.subscribers.size) return;
      const stopping = this.listening;
      this.listening = null;
      const stop = await stopping;
      await stop?.();
    };
  }

  private async listen(): Promise<() => Promise<void>> {
    const key = await this.key();
    const deliver = (message: string) => {
      // One subscriber's failure must not keep the message from the others, nor stop the queue.
      for (const subscriber of this.subscribers)
        try {
          subscriber(message);
        } catch {}
    };
    const assembly = new Assembly(deliver);
    // Payloads are opened one after another, so messages keep their order.
    let opening: Promise<void> = Promise.resolve();
    let pending = 0;
    let dropping = false;
    const lost = () => {
      assembly.clear();
      deliver(SIGNALS_LOST);
    };
    return this.db.listen!(
      this.channel,
      (payload) => {
        if (pending >= MAX_PENDING) {
          // Whatever was dropped may have been a real signal: followers start over from the store.
          if (!dropping) opening = opening.then(lost);
          dropping = true;
          return;
        }
        pending += 1;
        opening = opening.then(async () => {
          const text = await unseal(key, payload);
          pending -= 1;
          if (pending === 0) dropping = false;
          if (text !== undefined) assembly.take(text);
        });
      },
      () => void (opening = opening.then(lost)),
    );
  }

  publish(messages: string[]): Promise<void> {
    if (!this.db.listen) return this.local.publish(messages);
    for (const message of messages) this.outbox.push(...payloads(message));
    // One statement at a time, so notifications arrive in publishing order; whatever queued
    // meanwhile goes in the next statement together.
    this.publishing ??= (async () => {
      try {
        while (this.outbox.length) {
          const taken = this.outbox;
          this.outbox = [];
          const key = await this.key();
          const batch = await Promise.all(taken.map((payload) => seal(key, payload)));
          await this.db.query(
            'SELECT pg_notify($1, x.p) FROM unnest($2::text[]) WITH ORDINALITY AS x(p, n) ORDER BY x.n',
            [this.channel, batch],
          );
        }
      } finally {
        this.publishing = null;
      }
    })();
    return this.publishing;
  }
}
