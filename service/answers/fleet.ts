/**
 * Fleet signals about live answers, carried by the store's publish/subscribe (LISTEN/NOTIFY on
 * PostgreSQL). One message per line-separated form; the last field may be record text, which
 * never holds a raw newline (records are JSON). Each instance hears every message, its own too.
 *
 * - `watch`: an instance asks the generating one (`host`) to stream an answer to it.
 * - `snap`: the host's answer to one watch: what the answer has so far, as of record `seq`.
 * - `recs`: records `first`… of a watched answer, as the host flushes them; `last` ends it.
 * - `gone`: the host no longer generates the answer (the store has its end).
 * - `unwatch`: the watcher's client left.
 * - `cancel` / `ended`: stop an answer on its host / it is stored, for whoever waits.
 */
import { SIGNALS_LOST } from '../storage/types.js';

export type Signal =
  | { kind: 'watch'; answerId: string; watchId: string; host: string }
  | { kind: 'unwatch'; answerId: string; watchId: string }
  | { kind: 'snap'; watchId: string; seq: number; records: string }
  | { kind: 'recs'; answerId: string; first: number; last: boolean; records: string }
  | { kind: 'gone'; watchId: string }
  | { kind: 'cancel'; answerId: string; host: string }
  | { kind: 'ended'; answerId: string }
  | { kind: 'lost' };

export function encodeSignal(signal: Signal): string {
  switch (signal.kind) {
    case 'watch':
      return `watch\n${signal.answerId}\n${signal.watchId}\n${signal.host}`;
    case 'unwatch':
      return `unwatch\n${signal.answerId}\n${signal.watchId}`;
    case 'snap':
      return `snap\n${signal.watchId}\n${signal.seq}\n${signal.records}`;
    case 'recs':
      return `recs\n${signal.answerId}\n${signal.first}\n${signal.last ? 1 : 0}\n${signal.records}`;
    case 'gone':
      return `gone\n${signal.watchId}`;
    case 'cancel':
      return `cancel\n${signal.answerId}\n${signal.host}`;
    case 'ended':
      return `ended\n${signal.answerId}`;
    case 'lost':
      return SIGNALS_LOST;
  }
}

/** The first `count` fields, the last one holding the rest of the message. */
function fields(message: string, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 1; i < count; i++) {
    const next = message.indexOf('\n', at);
    if (next < 0) break;
    out.push(message.slice(at, next));
    at = next + 1;
  }
  out.push(message.slice(at));
  return out;
}

/** undefined for anything malformed or unknown (another version of the service may share the channel). */
export function decodeSignal(message: string): Signal | undefined {
  if (message === SIGNALS_LOST) return { kind: 'lost' };
  const kind = message.slice(0, message.indexOf('\n'));
  switch (kind) {
    case 'watch': {
      const [, answerId, watchId, host] = fields(message, 4);
      return host ? { kind, answerId, watchId, host } : undefined;
    }
    case 'unwatch': {
      const [, answerId, watchId] = fields(message, 3);
      return watchId ? { kind, answerId, watchId } : undefined;
    }
    case 'snap': {
      const [, watchId, seq, records] = fields(message, 4);
      return records !== undefined && Number.isInteger(Number(seq))
        ? { kind, watchId, seq: Number(seq), records }
        : undefined;
    }
    case 'recs': {
      const [, answerId, first, last, records] = fields(message, 5);
      return records !== undefined && Number.isInteger(Number(first))
        ? { kind, answerId, first: Number(first), last: last === '1', records }
        : undefined;
    }
    case 'gone':
      return { kind, watchId: fields(message, 2)[1] };
    case 'cancel': {
      const [, answerId, host] = fields(message, 3);
      return host ? { kind, answerId, host } : undefined;
    }
    case 'ended':
      return { kind, answerId: fields(message, 2)[1] };
    default:
      return undefined;
  }
}
