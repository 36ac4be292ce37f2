import { clear as clearAll, createStore, getMany, keys, promisifyRequest, type UseStore } from 'idb-keyval';
import type { ThreadSummary } from '../api/types.js';
import { chunkIds, type Head, sanitizeHead, toMessage, toMessages, validOrNone } from './device-records.js';
import { bounded } from './kept-threads.js';
import { sameOwner } from './device-memory.js';
import { CLAIM_MS, type OutboxEntry } from './outbox.js';
import type { ChatMessage } from './types.js';

/**
 * What the widget remembers across reloads, per project + integration. Never a token or a
 * key: only what the visitor already sees, so a reload can render at once with no request.
 */
export interface StoredMemory {
  open: boolean;
  threadListOpen: boolean;
  activeThreadId: string | null;
  /** Composer drafts by thread id ('' for a new conversation). */
  drafts: Record<string, string>;
  /** What the visitor sent that has not gone yet (the outbox). */
  outbox: OutboxEntry[];
  threads: ThreadSummary[];
  /** Messages of the active thread. */
  messages: ChatMessage[];
  /** The thread list last answered for an owner; a later 403 then means the owner changed. */
  owned: boolean;
  /**
   * The owner key (wire contract §2) that everything but `open` and `threadListOpen` belongs to:
   * a session's key, `-` (a session without owner), '' (the site's sessions name no owner), or
   * null (no session was known when it was written).
   */
  ownerKey: string | null;
  /** When the drafts as stored were taken (ms): a stash left after them is newer (decision 443). */
  draftsAt?: number;
}

/**
 * The panel's state: this tab's own, in its sessionStorage (decision 564): a reload or the tab's
 * next page opens the panel as it was left, a new tab (a link in an answer opens one) with it
 * closed, and no other tab follows it.
 */
type Panel = Pick<StoredMemory, 'open' | 'threadListOpen'>;
/** Messages per stored chunk: one more answer rewrites one chunk, not a 1,000-message thread. */
export const CHUNK_SIZE = 32;

/** A change another tab (or another widget of the page) made to this scope; no state: wiped. */
export type RemoteChange = { state?: StoredMemory };

export interface DeviceMemoryStore {
  /** What is stored; `live` keeps an answer that was streaming as streaming (another tab may still stream it). */
  load(live?: boolean): Promise<StoredMemory | undefined>;
  /**
   * Writes what changed since the last save (or load, or remote change) and tells the other tabs.
   * `rowsBefore`, the kept rows this tab's list was changed from: a public visitor's list is then
   * merged by thread id with the device's (decision 522), not written over it.
   */
  save(state: StoredMemory, rowsBefore?: readonly ThreadSummary[]): Promise<void>;
  /** Forgets everything of this scope and tells the other tabs. */
  clear(): Promise<void>;
  /** Calls `listener` with what another tab (or widget) saved, or without state when it wiped. Returns an unsubscribe. */
  watch(listener: (change: RemoteChange) => void): () => void;
  /**
   * Keeps `state`'s drafts, outbox and last question at once, where a page being left can still
   * write (none: forgets them); the next load takes them back. A write started in `pagehide`
   * may never land.
   */
  stash(state?: Stashed): void;
  /**
   * A kept thread's messages (a public visitor's past conversation, decisions 518, 521), if the
   * device has them. The thread's rows and messages are kept by save(): a thread that stops being
   * the active one keeps its chunks, one whose row leaves the list loses them.
   */
  keptThread(threadId: string): Promise<ChatMessage[] | undefined>;
  /**
   * Claims the queued question `id` for this tab, for CLAIM_MS, unless another tab's claim on it
   * holds (decision 660): whether this tab may send it. A tab reloaded is the same tab: its claim
   * holds for it. A store tabs do not share has none.
   */
  claim?(id: string): Promise<boolean>;
}

/** What a stash keeps of the state: the drafts (decision 443) and what the visitor sent (decision 451). */
export type Stashed = Pick<StoredMemory, 'drafts' | 'ownerKey' | 'activeThreadId'> & {
  outbox: readonly OutboxEntry[];
  messages: readonly ChatMessage[];
};

// The database, object store, channel and key names (`<scope>:ui…`) predate the name device
// memory: renamed, every visitor's remembered state would be lost.
const CHANNEL = 'agent-chat.ui-state';

let warned = false;
function warnOnce(error: unknown): void {
  if (warned) return;
  warned = true;
  console.warn(
    '[agent-chat] IndexedDB is unavailable; the chat works but will not remember its state across reloads.',
    error,
  );
}

/**
 * The stash (decision 443) in sessionStorage: this tab's, kept over a reload, gone with the tab,
 * written at once. Where it throws (a sandboxed frame, a privacy mode, a full quota) there is
 * none, as before it existed.
 */
const STASH = 'agent-chat:';
/** What a stash may take of the origin's sessionStorage, which the site shares: never a whole conversation. */
export const MAX_STASH_CHARS = 64_000;
/** Where a tab keeps its panel's state; its own prefix, so no scope's stash can share its key. */
const PANEL = 'agent-chat.panel:';
/**
 * Where a page being left names its tab in its claims on queued questions, for the next load of
 * the tab to take: written at pagehide only, so a tab duplicated from a live one (the browser
 * copies its sessionStorage) does not find the name and is another tab.
 */
const TAB = 'agent-chat.tab:';
/** A panel's state as two digits: "10", open with its thread list closed. */
const panelText = (p: Panel): string => `${+p.open}${+p.threadListOpen}`;
const panelFrom = (text = ''): Panel => ({ open: text[0] === '1', threadListOpen: text[1] === '1' });
/** Reads this tab's panel state (decision 564), or writes it ('' forgets it). */
function tabPanel(scope: string, text?: string): string | null | undefined {
  return inSession((storage) => {
    if (text === undefined) return storage.getItem(PANEL + scope);
    if (text) storage.setItem(PANEL + scope, text);
    else storage.removeItem(PANEL + scope);
  });
}
function inSession<T>(use: (storage: Storage) => T): T | undefined {
  try {
    return use(sessionStorage);
  } catch {
    return undefined;
  }
}

let sharedStore: UseStore | undefined;
/** Writes of every widget run one after another, so a later one never lands under an earlier one. */
let writes: Promise<void> = Promise.resolve();
function idbStore(): UseStore {
  // One database and object store for every widget on the origin; keys carry the scope.
  sharedStore ??= createStore('agent-chat', 'ui-state');
  return sharedStore;
}

/** The same key order every time, so two heads with the same content serialize alike. */
const headText = (head: Omit<Head, 'chunks'>, chunks: readonly string[]): string =>
  JSON.stringify([
    head.ownerKey,
    head.activeThreadId,
    head.drafts,
    head.outbox,
    head.threads,
    head.owned,
    chunks,
  ]);

/** The parts of a head one change touches; a write takes from the device every part it did not change. */
const PARTS = [['activeThreadId', 'chunks'], ['threads', 'owned'], ['drafts'], ['outbox']] as const;
/** The drafts' part: its time (`draftsAt`) goes with it, newest wins against a stash (decision 443). */
const DRAFTS = 2;
const partsOf = (head: Head): string[] => PARTS.map((keys) => JSON.stringify(keys.map((key) => head[key])));

/**
 * What a write puts on the device: this tab's head, but where the device holds the same owner's
 * state, the parts this tab did not change come from the device. Another tab may have written
 * them since this tab last looked (its message is still on the way): this tab's older copy of
 * them must not overwrite that (a rename, an answer's end). See decision 235.
 */
function merged(ours: Head, stored: Head | undefined, changed: readonly boolean[]): Head {
  if (!stored || !sameOwner(stored.ownerKey, ours.ownerKey)) return ours;
  const out = { ...ours };
  PARTS.forEach((keys, i) => changed[i] || keys.forEach((key) => Object.assign(out, { [key]: stored[key] })));
  // Drafts taken from the device keep the time they were taken.
  if (!changed[DRAFTS]) out.draftsAt = stored.draftsAt;
  return out;
}

/** The list's part of a head. */
const ROWS = 1;

/**
 * A public visitor's kept rows as this tab changed them, applied to the device's (decision 522):
 * the rows this tab added, bumped or renamed since `before` replace the device's by thread id,
 * the ones it dropped go, and every other row the device holds (another tab's answer that ended
 * meanwhile) stays; then the bounds of decision 518.
 */
function mergedRows(
  stored: readonly ThreadSummary[],
  before: readonly ThreadSummary[],
  ours: readonly ThreadSummary[],
): ThreadSummary[] {
  const was = new Map(before.map((t) => [t.id, JSON.stringify(t)]));
  const out = new Map(stored.map((t) => [t.id, t]));
  for (const id of was.keys()) if (!ours.some((t) => t.id === id)) out.delete(id);
  for (const t of ours) if (was.get(t.id) !== JSON.stringify(t)) out.set(t.id, t);
  return bounded([...out.values()], Date.now()).threads;
}

let chunkStamps = 0;
const stamp = () => `${Date.now().toString(36)}.${(++chunkStamps).toString(36)}`;

/**
 * The messages in chunks, against the chunks known by stamp (`ids` in order): an unchanged chunk
 * keeps its stamp, a changed one gets a new one.
 */
function chunksOf(
  messages: readonly ChatMessage[],
  known: readonly string[],
  chunk: (id: string) => readonly ChatMessage[] | undefined,
) {
  const ids: string[] = [];
  const fresh = new Map<string, readonly ChatMessage[]>();
  for (let at = 0, i = 0; at < messages.length; at += CHUNK_SIZE, i += 1) {
    const part = messages.slice(at, at + CHUNK_SIZE);
    const id = known[i];
    const before = id === undefined ? undefined : chunk(id);
    if (before && before.length === part.length && before.every((m, k) => m === part[k])) ids.push(id);
    else {
      const next = stamp();
      ids.push(next);
      fresh.set(next, part);
    }
  }
  return { ids, fresh };
}

/** What a tab tells the others on the channel: a write (the head and the chunks it put) or a wipe. */
type Broadcast = { scope?: string; cleared?: boolean; head?: unknown; chunks?: Record<string, unknown> };

const stateOf = (h: Head, p: Panel, messages: ChatMessage[]): StoredMemory => {
  const { chunks: _chunks, ...rest } = h;
  return { ...p, ...rest, messages };
};

/** Nothing of an owner's (after a wipe, or before anything): no record for the other tabs to follow. */
const isEmpty = (state: StoredMemory) =>
  !state.messages.length &&
  !state.threads.length &&
  !state.outbox.length &&
  !Object.keys(state.drafts).length &&
  state.activeThreadId === null;

const NOTHING: StoredMemory = {
  open: false,
  threadListOpen: false,
  activeThreadId: null,
  drafts: {},
  outbox: [],
  threads: [],
  messages: [],
  owned: false,
  ownerKey: null,
};

/**
 * The last question and, once its answer started, that answer by its id alone: reattaching
 * (§9) brings back its text, so a stash stays the size of one question.
 */
function lastQuestion(messages: readonly ChatMessage[]): ChatMessage[] {
  const at = messages.map((m) => m.role).lastIndexOf('user');
  if (at < 0) return [];
  const answer = messages[at + 1];
  if (!answer?.questionAnswerId) return [messages[at]];
  const { id, questionAnswerId } = answer;
  return [
    messages[at],
    { id, role: 'assistant', content: '', sources: [], status: 'interrupted', questionAnswerId },
  ];
}

/**
 * The state with the question a stash kept, where the device does not hold it (decision 451):
 * after what the device holds of its thread, or alone when the device shows another thread. A
 * question whose answer had not started comes back as one not sent, with Retry (it may or may
 * not have reached the service); one whose answer had started reattaches to it.
 */
function withQuestion(state: StoredMemory, threadId: string | null, sent: ChatMessage[]): StoredMemory {
  const [question, answer] = sent;
  const { messages } = state;
  if (!question || messages.some((m) => answer && m.questionAnswerId === answer.questionAnswerId))
    return state;
  const at = messages.findIndex((m) => m.id === question.id);
  if (at >= 0 && !answer) return state;
  const earlier = at >= 0 ? messages.slice(0, at) : state.activeThreadId === threadId ? messages : [];
  return { ...state, activeThreadId: threadId, messages: [...earlier, ...sent] };
}

/**
 * What the device holds, with a stash's drafts, outbox and question in place of its own when the
 * stash was left after the device's drafts were taken (newest wins) and is the same owner's, or
 * the record is nobody's yet (no key, or nothing of an owner's): then it is the stash owner's,
 * as the tab that left it had adopted it (decision 110). Another owner's stash never joins a record.
 */
function withStash(
  state: StoredMemory | undefined,
  raw: string | null | undefined,
): StoredMemory | undefined {
  const stash = validOrNone(
    () =>
      JSON.parse(raw!) as { o?: unknown; d?: unknown; t?: unknown; b?: unknown; h?: unknown; m?: unknown },
  )[0];
  const ownerKey = typeof stash?.o === 'string' ? stash.o : null;
  if (
    !stash ||
    (state && !isEmpty(state) && state.ownerKey !== null && state.ownerKey !== ownerKey) ||
    !(Number(stash.t) >= (state?.draftsAt ?? 0))
  )
    return state;
  const { drafts, outbox } = sanitizeHead({ drafts: stash.d, outbox: stash.b })!;
  const base = state ?? NOTHING;
  return withQuestion(
    { ...base, ownerKey, drafts, outbox: Array.isArray(stash.b) ? outbox : base.outbox },
    typeof stash.h === 'string' ? stash.h : null,
    toMessages(stash.m, false),
  );
}

/**
 * Where a kept thread that is not the active one names its chunks (decision 521): under the
 * scope's `:ui` prefix, so clear() takes them too.
 */
const keptKey = (scope: string, threadId: string) => `${scope}:ui:t:${threadId}`;
const chunkKey = (scope: string, id: string) => `${scope}:ui:m:${id}`;
type KeptRecord = { chunks: string[] };
/** A kept thread read to be opened: its messages, and its chunks by stamp to take as they are. */
type Opened = { threadId: string; ids: string[]; chunks: Map<string, ChatMessage[]> };
type KeptRead = { messages: ChatMessage[]; opened: Opened };
/**
 * The conversation a tab writes: its thread, its chunks' stamps, the chunks it did not write now
 * (by stamp), and those a kept thread's record held when it was opened (on the device already).
 */
type Mine = {
  threadId: string | null;
  ids: string[];
  unwritten: Map<string, readonly ChatMessage[]>;
  vouched: readonly string[];
  /** The device held a record this state grew from, when the save was asked for (decision 623). */
  knew: boolean;
};

/**
 * A write this tab has to refuse: it has not heard yet of the wipe another tab made (its message
 * is on the way). Over the next owner's record, that owner's conversation was lost and this tab's
 * rev hid it from this tab for good (decision 580); on the emptied device where this tab knew a
 * record, the previous owner's state came back (decision 623). Null, no known owner, is claimed.
 */
function staleOver(stored: Head | undefined, head: Head, knew: boolean): boolean {
  return stored ? stored.ownerKey !== null && !sameOwner(stored.ownerKey, head.ownerKey) : knew;
}

/**
 * A kept thread's messages, in one transaction with the head: while it is the active thread the
 * head names its chunks, else its own record does.
 */
function readKept(store: UseStore, scope: string, threadId: string): Promise<KeptRead | undefined> {
  return store('readonly', (os) => {
    const head = os.get(`${scope}:ui`);
    const kept = os.get(keptKey(scope, threadId));
    const found = new Map<string, unknown>();
    let ids: string[] | undefined;
    // Requests complete in the order they were made: the head's has by now.
    kept.onsuccess = () => {
      const active = sanitizeHead(head.result);
      const value = kept.result as Partial<KeptRecord> | undefined;
      if (active?.activeThreadId === threadId) ids = active.chunks;
      else if (Array.isArray(value?.chunks)) ids = chunkIds(value.chunks);
      for (const id of ids ?? []) {
        const read = os.get(chunkKey(scope, id));
        read.onsuccess = () => found.set(id, read.result);
      }
    };
    return promisifyRequest(os.transaction).then(() => {
      if (!ids || ids.some((id) => !Array.isArray(found.get(id)))) return undefined;
      const chunks = new Map(ids.map((id) => [id, toMessages(found.get(id), false)]));
      return { messages: ids.flatMap((id) => chunks.get(id)!), opened: { threadId, ids, chunks } };
    });
  });
}

/**
 * Where a public visitor's conversations' chunks go as a head is written (decision 521), inside
 * its transaction: a thread is either the active one, its chunks named by the head, or kept
 * under its own record, never both, so an answer writes its chunk once and no thread is copied.
 */
class KeptChunks {
  readonly #os: IDBObjectStore;
  readonly #scope: string;
  readonly #head: Head;
  /** Chunks something still names: never deleted. */
  readonly #named: Set<string>;

  constructor(os: IDBObjectStore, scope: string, head: Head) {
    this.#os = os;
    this.#scope = scope;
    this.#head = head;
    this.#named = new Set(head.chunks);
  }

  /**
   * `stored`, the device's head before (a public visitor's): the thread it showed keeps its
   * chunks when its row stays, the one shown now takes its record's, and a row gone from the
   * list takes its record and chunks with it. Then `unnamed` chunks nothing names are deleted.
   */
  settle(stored: Head | undefined, unnamed: readonly string[]): void {
    const { activeThreadId, threads } = this.#head;
    const left = stored?.activeThreadId;
    if (left && left !== activeThreadId && threads.some((t) => t.id === left)) {
      stored.chunks.forEach((id) => this.#named.add(id));
      this.#os.put({ chunks: stored.chunks } satisfies KeptRecord, keptKey(this.#scope, left));
    }
    if (stored && activeThreadId && activeThreadId !== left) this.#drop(activeThreadId);
    for (const row of stored?.threads ?? []) if (!threads.some((t) => t.id === row.id)) this.#drop(row.id);
    for (const id of unnamed) if (!this.#named.has(id)) this.#os.delete(chunkKey(this.#scope, id));
  }

  /**
   * This tab's conversation, whose chunks another tab's write may have deleted (two tabs
   * answering in two threads at once; the device's head named that tab's thread): chunks the
   * head names that the device's did not are written again, and a thread listed here that is
   * no longer the active one gets a record if it has none.
   */
  restore(mine: Mine, stored: Head | undefined): void {
    const present = new Set([...(stored?.chunks ?? []), ...mine.vouched]);
    const again = () =>
      mine.unwritten.forEach(
        (chunk, id) => present.has(id) || this.#os.put(chunk, chunkKey(this.#scope, id)),
      );
    const { activeThreadId, chunks, threads } = this.#head;
    if (mine.threadId === activeThreadId) return chunks.join() === mine.ids.join() ? again() : undefined;
    if (!mine.threadId || !threads.some((t) => t.id === mine.threadId)) return;
    const key = keptKey(this.#scope, mine.threadId);
    const read = this.#os.get(key);
    read.onsuccess = () => {
      if (read.result !== undefined) return;
      again();
      this.#os.put({ chunks: mine.ids } satisfies KeptRecord, key);
    };
  }

  /** A thread's record goes, and its chunks the head does not name. */
  #drop(threadId: string): void {
    const key = keptKey(this.#scope, threadId);
    const read = this.#os.get(key);
    read.onsuccess = () => {
      const value = read.result as Partial<KeptRecord> | undefined;
      for (const id of chunkIds(value?.chunks))
        if (!this.#named.has(id)) this.#os.delete(chunkKey(this.#scope, id));
      this.#os.delete(key);
    };
  }
}

/**
 * Deletes every record of `scope` in one transaction. `taking` gets, once, the `rev` of the head
 * it deletes, read in that transaction: no other tab's write lands between, so every head
 * written before is no newer (0: the wipe failed, or found none).
 */
async function wipeScope(
  opened: () => UseStore,
  scope: string,
  taking: (rev: number) => void,
): Promise<void> {
  let taken = false;
  const take = (rev: number) => {
    if (!taken) taking(rev);
    taken = true;
  };
  try {
    const store = opened();
    const all = (await keys(store)).filter((key) => typeof key === 'string' && key.startsWith(`${scope}:ui`));
    await store('readwrite', (os) => {
      const head = os.get(`${scope}:ui`);
      head.onsuccess = () => take(sanitizeHead(head.result)?.rev ?? 0);
      for (const key of all) os.delete(key);
      return promisifyRequest(os.transaction);
    });
  } finally {
    take(0);
  }
}

/** The claims on a scope's queued questions, by question: which tab, until when. */
type Claims = Record<string, { by?: unknown; until?: unknown }>;

/**
 * The claim in one read-write transaction, which the browser runs alone among the tabs' on this
 * store: two tabs never both find the question free. The record keeps the claims that hold,
 * each question's own (a claim on the next question leaves this one's). Where IndexedDB fails,
 * the tab sends.
 */
function claimQueued(store: UseStore, key: string, id: string, by: string): Promise<boolean> {
  return store('readwrite', (os) => {
    const read = os.get(key);
    let mine = false;
    read.onsuccess = () => {
      const now = Date.now();
      const held = Object.entries(
        read.result && typeof read.result === 'object' ? (read.result as Claims) : {},
      ).filter(([, claim]) => Number(claim?.until) > now);
      if (held.some(([question, claim]) => question === id && claim.by !== by)) return;
      os.put({ ...Object.fromEntries(held), [id]: { by, until: now + CLAIM_MS } }, key);
      mine = true;
    };
    return promisifyRequest(os.transaction).then(() => mine);
  }).catch((error) => (warnOnce(error), true));
}

/**
 * A key of this tab's sessionStorage, taken: the stash and the tab's name are read once, and what
 * the tab writes after is newer.
 */
const taken = (key: string) =>
  inSession((storage) => {
    const raw = storage.getItem(key);
    storage.removeItem(key);
    return raw;
  });

/**
 * Keeps the stash of `scope` and this tab's name beside it, where the next load of the tab takes
 * them, or forgets both (`text` none: a wipe).
 */
const keepStash = (scope: string, text: string | undefined, tab: string) =>
  inSession((storage) => {
    for (const [key, value] of [
      [STASH, text],
      [TAB, text && tab],
    ] as const)
      if (value) storage.setItem(key + scope, value);
      else storage.removeItem(key + scope);
  });

/**
 * Device memory in IndexedDB through idb-keyval, for one scope: the owner-bound head, the panel, and
 * the active thread's messages in chunks of CHUNK_SIZE, each written only when one of its
 * messages changed (messages are replaced, never mutated, so identity tells). Every save tells
 * the other tabs on a BroadcastChannel what changed, so they follow without reading the
 * database. Every failure (private mode, blocked storage, a quota) degrades to "no cache" with
 * one console warning, never to a broken widget.
 */
export function createDeviceMemoryStore(
  scope: string,
  options: { store?: () => UseStore } = {},
): DeviceMemoryStore {
  return new IdbDeviceMemoryStore(scope, options.store ?? idbStore);
}

class IdbDeviceMemoryStore implements DeviceMemoryStore {
  readonly #scope: string;
  readonly #store: () => UseStore;
  readonly #channel?: BroadcastChannel;
  /** What the database holds as far as this tab knows: the chunks by stamp, the head and panel as written. */
  #known = new Map<string, readonly ChatMessage[]>();
  #chunkIds: string[] = [];
  #head = '';
  /** The parts of the head, to tell which ones this tab changed since (undefined: nothing known). */
  #parts?: string[];
  #panel = '';
  /** The newest head this tab wrote, followed or wiped (its `rev`): a message about an older one is stale. */
  #rev = 0;
  /** This tab's wipes that have not yet read the head they take (decision 634). */
  #clearing = 0;
  /** A kept thread just read to be opened: saved as the active one, its chunks are taken as they are. */
  #opened?: Opened;
  readonly #listeners = new Set<(change: RemoteChange) => void>();
  /** Changes to follow, one after the other, in the order they came. */
  #applying: Promise<void> = Promise.resolve();
  /** This tab's name in its claims (decision 660): the name it had before a reload, else a new one. */
  readonly #tab: string;

  constructor(scope: string, store: () => UseStore) {
    this.#scope = scope;
    this.#store = store;
    this.#tab = taken(TAB + scope) ?? `${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`;
    if (typeof BroadcastChannel === 'function') this.#channel = new BroadcastChannel(CHANNEL);
  }

  async load(live = false): Promise<StoredMemory | undefined> {
    let state: StoredMemory | undefined;
    try {
      state = await this.#read(live);
    } catch (error) {
      warnOnce(error);
    }
    const panel = tabPanel(this.#scope);
    if (panel) {
      this.#panel = panel;
      state = { ...(state ?? NOTHING), ...panelFrom(panel) };
    }
    return withStash(state, taken(STASH + this.#scope));
  }

  claim(id: string): Promise<boolean> {
    return claimQueued(this.#store(), `${this.#scope}:ui:claim`, id, this.#tab);
  }

  stash(state?: Stashed): void {
    const drafts = state && { o: state.ownerKey, d: state.drafts, t: Date.now() };
    // The drafts alone where the outbox and the question would not fit.
    const text =
      state &&
      [{ ...drafts, b: state.outbox, h: state.activeThreadId, m: lastQuestion(state.messages) }, drafts]
        .map((kept) => JSON.stringify(kept))
        .find((kept) => kept.length <= MAX_STASH_CHARS);
    keepStash(this.#scope, text, this.#tab);
  }

  async keptThread(threadId: string): Promise<ChatMessage[] | undefined> {
    // After the writes already asked for: a thread kept a moment ago reads as kept.
    const read = await writes.then(() => readKept(this.#store(), this.#scope, threadId)).catch(warnOnce);
    // Opened, the thread becomes the active one with these chunks, not a copy of them.
    this.#opened = read?.opened;
    return read?.messages;
  }

  save(state: StoredMemory, rowsBefore?: readonly ThreadSummary[]): Promise<void> {
    const opened = this.#opened?.threadId === state.activeThreadId ? this.#opened : undefined;
    if (opened) {
      this.#opened = undefined;
      this.#chunkIds = opened.ids;
      opened.chunks.forEach((chunk, id) => this.#known.set(id, chunk));
    }
    const { ids, fresh } = chunksOf(state.messages, this.#chunkIds, (id) => this.#known.get(id));
    const unwritten = new Map(ids.filter((id) => !fresh.has(id)).map((id) => [id, this.#known.get(id)!]));
    const [vouched, knew] = [opened?.ids ?? [], this.#head !== ''];
    const mine = { threadId: state.activeThreadId, ids, unwritten, vouched, knew };
    const { open: _open, threadListOpen: _listOpen, messages: _messages, ...shared } = state;
    const nextHead = headText(shared, ids);
    const nextPanel = panelText(state);
    // Also what keeps two tabs from echoing each other's writes back and forth.
    if (nextHead === this.#head && nextPanel === this.#panel) return writes;
    const headChanged = nextHead !== this.#head && !(isEmpty(state) && this.#head === '');
    const gone = this.#chunkIds.filter((id) => !ids.includes(id));
    const head: Head = { ...shared, chunks: ids };
    const nextParts = partsOf(head);
    const changed = nextParts.map((part, i) => this.#parts?.[i] !== part);
    // Taken now, before a write that a navigation may cut off; a stash left later is newer.
    if (changed[DRAFTS]) head.draftsAt = Date.now();
    if (headChanged) {
      this.#head = nextHead;
      this.#parts = nextParts;
    }
    if (nextPanel !== this.#panel) tabPanel(this.#scope, nextPanel);
    this.#panel = nextPanel;
    // Only the panel changed: nothing for the database.
    if (!headChanged && !fresh.size && !gone.length) return writes;
    this.#remember(ids, fresh);
    writes = writes
      .then(async () => {
        const written = await this.#put(headChanged && { head, changed, rowsBefore, mine }, fresh, gone);
        // What this tab knows of the device is another owner's now: it starts again from nothing.
        if (written === 'refused') return this.#forget();
        if (!written) return;
        const told: Broadcast = { scope: this.#scope, head: written, chunks: Object.fromEntries(fresh) };
        this.#channel?.postMessage(told);
        // The device holds what this tab does not show (another tab's row, merged in): follow it.
        if (headText(written, written.chunks) !== nextHead) this.#enqueue(told);
        else this.#rev = Math.max(this.#rev, written.rev ?? 0);
      })
      .catch(warnOnce);
    return writes;
  }

  clear(): Promise<void> {
    this.#forget();
    // This tab's panel state goes too (a revoked consent keeps nothing); the widget writes it
    // again with its next change. Other tabs keep theirs.
    this.#panel = '';
    tabPanel(this.#scope, '');
    this.#clearing++;
    const wiped = (rev: number) => {
      this.#clearing--;
      this.#rev = Math.max(this.#rev, rev);
    };
    writes = writes
      .then(async () => {
        await wipeScope(this.#store, this.#scope, wiped);
        this.#channel?.postMessage({ scope: this.#scope, cleared: true });
      })
      .catch(warnOnce);
    return writes;
  }

  watch(listener: (change: RemoteChange) => void): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#channel?.addEventListener('message', this.#onMessage);
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size) this.#channel?.removeEventListener('message', this.#onMessage);
    };
  }

  readonly #onMessage = (event: MessageEvent<Broadcast>) => this.#enqueue(event.data);

  /** One change after the other: one that waits for the database must not land after (and over) a later one. */
  #enqueue(data: Broadcast): void {
    this.#applying = this.#applying.then(() => this.#follow(data)).catch(warnOnce);
  }

  #assemble(ids: readonly string[]): ChatMessage[] | undefined {
    const out: ChatMessage[] = [];
    for (const id of ids) {
      const chunk = this.#known.get(id);
      if (!chunk) return undefined;
      out.push(...chunk);
    }
    return out;
  }

  #remember(ids: readonly string[], chunks: Map<string, readonly ChatMessage[]>): void {
    const known = this.#known;
    this.#known = new Map(ids.map((id) => [id, chunks.get(id) ?? known.get(id)!]));
    this.#chunkIds = [...ids];
  }

  /** Nothing of this scope is known to be on the device any more. */
  #forget(): void {
    this.#head = '';
    this.#rev = 0;
    this.#parts = undefined;
    this.#known = new Map();
    this.#chunkIds = [];
  }

  async #read(live: boolean): Promise<StoredMemory | undefined> {
    // One transaction: between a head read alone and its chunks read after, another tab's
    // write could delete a chunk the head still names, and the conversation would read empty.
    const [rawHead, values] = await this.#store()('readonly', (os) => {
      const headRead = os.get(`${this.#scope}:ui`);
      const found = new Map<string, unknown>();
      headRead.onsuccess = () => {
        for (const id of sanitizeHead(headRead.result)?.chunks ?? []) {
          if (this.#known.has(id)) continue;
          const chunkRead = os.get(chunkKey(this.#scope, id));
          chunkRead.onsuccess = () => found.set(id, chunkRead.result);
        }
      };
      return promisifyRequest(os.transaction).then(() => [headRead.result, found] as const);
    });
    const h = sanitizeHead(rawHead);
    if (!h) return undefined;
    // An older record keeps its messages in the head.
    const legacy = rawHead as { messages?: unknown };
    const chunks = new Map([...values].map(([id, value]) => [id, toMessages(value, live)]));
    this.#remember(h.chunks, chunks);
    this.#head = headText(h, h.chunks);
    this.#parts = partsOf(h);
    this.#rev = Math.max(this.#rev, h.rev ?? 0);
    let messages = Array.isArray(legacy.messages)
      ? toMessages(legacy.messages, live)
      : this.#assemble(h.chunks)!;
    // Chunks this tab followed live keep an answer streaming; read back as after a reload, it is cut off.
    if (!live)
      messages = messages.map((m) =>
        m.status === 'streaming' || m.status === 'sending' ? toMessage(m, false) : m,
      );
    return stateOf(h, panelFrom(), messages);
  }

  /**
   * One transaction: the new chunks, the gone ones, and (when it changed) the head,
   * read and written together so no other tab's write lands in between. Returns the head as
   * written (merged with the device's, decisions 235 and 522), nothing when it did not change, or
   * 'refused' over another owner's record (decision 580).
   */
  async #put(
    next:
      | false
      | { head: Head; changed: readonly boolean[]; rowsBefore?: readonly ThreadSummary[]; mine: Mine },
    fresh: Map<string, readonly ChatMessage[]>,
    gone: readonly string[],
  ): Promise<Head | 'refused' | undefined> {
    let written: Head | 'refused' | undefined;
    await this.#store()('readwrite', (os) => {
      const putFresh = () => fresh.forEach((chunk, id) => os.put(chunk, chunkKey(this.#scope, id)));
      if (!next) {
        // Chunks of an unchanged conversation: none are new, none are gone.
        putFresh();
        for (const id of gone) os.delete(chunkKey(this.#scope, id));
        return promisifyRequest(os.transaction);
      }
      const read = os.get(`${this.#scope}:ui`);
      read.onsuccess = () => {
        const stored = sanitizeHead(read.result);
        if (staleOver(stored, next.head, next.mine.knew)) return void (written = 'refused');
        putFresh();
        const head = merged(next.head, stored, next.changed);
        // A list the service never answered is a public visitor's, kept on the device (518),
        // under `-` (or '', as versions before decision 540 stored it).
        const kept = !!stored && sameOwner(stored.ownerKey, head.ownerKey) && !stored.owned && !head.owned;
        if (kept && next.changed[ROWS] && next.rowsBefore)
          head.threads = mergedRows(stored.threads, next.rowsBefore, head.threads);
        head.rev = Math.max((stored?.rev ?? 0) + 1, Date.now(), this.#rev + 1);
        written = head;
        os.put(head, `${this.#scope}:ui`);
        const chunks = new KeptChunks(os, this.#scope, head);
        chunks.settle(kept ? stored : undefined, [...(stored?.chunks ?? []), ...gone]);
        if (kept) chunks.restore(next.mine, stored);
      };
      return promisifyRequest(os.transaction);
    });
    return written;
  }

  /** Another tab wrote (or wiped) a scope: this one's changes go to the listeners. */
  async #follow(data: Broadcast | undefined): Promise<void> {
    // No one to tell (the widget stopped watching): nothing is followed, as with no channel.
    if (data?.scope !== this.#scope || !this.#listeners.size) return;
    const tell = (change: RemoteChange) => this.#listeners.forEach((listener) => listener(change));
    if (data.cleared) {
      this.#forget();
      return tell({});
    }
    const h = sanitizeHead(data.head);
    // Came late: older than what this tab wrote, followed or wiped, or one its wipe under way takes.
    if (!h || (h.rev && h.rev <= this.#rev) || this.#clearing) return;
    const sent = new Map(
      Object.entries(data.chunks ?? {}).map(([id, chunk]) => [id, toMessages(chunk, true)] as const),
    );
    // Chunks this tab has not seen (it was still reading, say) come from the database.
    const missing = h.chunks.filter((id) => !sent.has(id) && !this.#known.has(id));
    if (missing.length) {
      try {
        const values = await getMany(
          missing.map((id) => chunkKey(this.#scope, id)),
          this.#store(),
        );
        // Gone already: a later write replaced it, and that write's message is on its way.
        if (values.includes(undefined)) return;
        missing.forEach((id, i) => sent.set(id, toMessages(values[i], true)));
      } catch (error) {
        return warnOnce(error);
      }
    }
    this.#remember(h.chunks, sent);
    this.#head = headText(h, h.chunks);
    this.#parts = partsOf(h);
    this.#rev = Math.max(this.#rev, h.rev ?? 0);
    tell({ state: stateOf(h, panelFrom(this.#panel), this.#assemble(h.chunks) ?? []) });
  }
}

/** Removes every widget's cached state on this origin (tests, a "forget me" link). */
export async function clearDeviceMemory(): Promise<void> {
  inSession((storage) =>
    Object.keys(storage).forEach(
      (key) => [STASH, PANEL, TAB].some((prefix) => key.startsWith(prefix)) && storage.removeItem(key),
    ),
  );
  // After the writes already asked for, so none of them lands after the wipe.
  writes = writes.then(() => clearAll(idbStore())).catch(warnOnce);
  await writes;
}
