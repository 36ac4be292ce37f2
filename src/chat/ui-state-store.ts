import { en } from '../i18n/en.js';
import { clear as clearAll, createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { ThreadSummary } from '../api/types.js';
import { toSources, toThreadSummary } from '../api/validate.js';
import type { ChatMessage } from './types.js';

/**
 * What the widget remembers across reloads, per project + integration. Never a token or a
 * key: only what the visitor already sees, so a reload can render at once with no request.
 */
export interface UiState {
  open: boolean;
  sidebarOpen: boolean;
  activeThreadId: string | null;
  /** Composer drafts by thread id ('' for a new conversation). */
  drafts: Record<string, string>;
  /** Follow-ups queued behind an answer in progress. */
  queued: { id: string; text: string }[];
  threads: ThreadSummary[];
  /** Messages of the active thread. */
  messages: ChatMessage[];
  /** History last answered for an owner; a later 403 then means the owner changed. */
  owned: boolean;
  /** The owner key (wire contract §2) the threads and messages belong to; null: nobody confirmed. */
  ownerKey: string | null;
}


const CHANNEL = 'agent-chat.ui-state';

export interface UiStateStore {
  load(): Promise<UiState | undefined>;
  save(state: UiState): Promise<void>;
  clear(): Promise<void>;
  /** Calls `listener` when another tab (or widget) saved or cleared this scope. Returns an unsubscribe. */
  watch(listener: () => void): () => void;
}

let warned = false;
function warnOnce(error: unknown): void {
  if (warned) return;
  warned = true;
  console.warn('[agent-chat] IndexedDB is unavailable; the chat works but will not remember its state across reloads.', error);
}

let sharedStore: UseStore | undefined;
function idbStore(): UseStore {
  // One database and object store for every widget on the origin; keys carry the scope.
  sharedStore ??= createStore('agent-chat', 'ui-state');
  return sharedStore;
}

function validOrNone<T>(read: () => T): T[] {
  try {
    return [read()];
  } catch {
    return [];
  }
}

const STATUSES = new Set<string>(['sending', 'sent', 'failed', 'streaming', 'complete', 'stopped', 'error', 'interrupted', 'waiting']);

/** A stored message with the shape the views expect; one cut off mid-answer by a reload is marked so. */
function toMessage(value: unknown): ChatMessage {
  const m = value as Partial<ChatMessage> | null;
  if (!m || typeof m.id !== 'string' || typeof m.content !== 'string' || (m.role !== 'user' && m.role !== 'assistant') || !STATUSES.has(m.status as string)) {
    throw new TypeError('not a message');
  }
  const status = m.status === 'streaming' || m.status === 'sending' ? (m.role === 'user' ? 'failed' : 'interrupted') : m.status!;
  // A key this version does not know (an older or newer record) reads as the generic failure.
  const key = m.error && typeof m.error.key === 'string' && m.error.key in en ? m.error.key : 'errorGeneric';
  const error = m.error && typeof m.error.message === 'string' ? { code: String(m.error.code), message: m.error.message, key, recoverable: m.error.recoverable === true } : undefined;
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    sources: toSources(m.sources),
    status,
    ...(error ? { error } : {}),
    ...(typeof m.questionAnswerId === 'string' ? { questionAnswerId: m.questionAnswerId } : {}),
    // What the answer showed besides its text (shapes checked where they are rendered from).
    ...(Array.isArray(m.activity) ? { activity: m.activity.filter(isStep) } : {}),
    ...(Array.isArray(m.toolCalls) ? { toolCalls: m.toolCalls.filter(isCall) } : {}),
    ...(m.uncertain === true ? { uncertain: true } : {}),
    ...(m.reaction === 'upvote' || m.reaction === 'downvote' ? { reaction: m.reaction } : {}),
  };
}

const isStep = (a: unknown): a is NonNullable<ChatMessage['activity']>[number] =>
  !!a && typeof (a as { id?: unknown }).id === 'string' && typeof (a as { name?: unknown }).name === 'string';
const isCall = (c: unknown): c is NonNullable<ChatMessage['toolCalls']>[number] =>
  !!c && typeof (c as { id?: unknown }).id === 'string' && typeof (c as { displayName?: unknown }).displayName === 'string' && typeof (c as { state?: unknown }).state === 'string';

/** Only the fields we know, with the types we expect: a corrupt or foreign record is ignored. */
function sanitize(value: unknown): UiState | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Partial<UiState>;
  return {
    open: v.open === true,
    sidebarOpen: v.sidebarOpen === true,
    activeThreadId: typeof v.activeThreadId === 'string' ? v.activeThreadId : null,
    drafts: v.drafts && typeof v.drafts === 'object' ? Object.fromEntries(Object.entries(v.drafts).filter(([, text]) => typeof text === 'string')) : {},
    queued: Array.isArray(v.queued) ? v.queued.filter((q) => q && typeof q.id === 'string' && typeof q.text === 'string').map(({ id, text }) => ({ id, text })) : [],
    threads: Array.isArray(v.threads) ? v.threads.flatMap((t) => validOrNone(() => toThreadSummary('Reading the device', t))) : [],
    messages: Array.isArray(v.messages) ? v.messages.flatMap((m) => validOrNone(() => toMessage(m))) : [],
    owned: v.owned === true,
    ownerKey: typeof v.ownerKey === 'string' ? v.ownerKey : null,
  };
}

/**
 * UI state in IndexedDB through idb-keyval. Every failure (private mode, blocked storage, a
 * quota) degrades to "no cache" with one console warning, never to a broken widget.
 */
export function createUiStateStore(scope: string, options: { store?: () => UseStore } = {}): UiStateStore {
  const key = `${scope}:ui`;
  const store = options.store ?? idbStore;
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : undefined;
  const announce = () => channel?.postMessage({ scope });

  return {
    async load() {
      try {
        return sanitize(await get(key, store()));
      } catch (error) {
        warnOnce(error);
        return undefined;
      }
    },
    async save(state) {
      try {
        await set(key, state, store());
        announce();
      } catch (error) {
        warnOnce(error);
      }
    },
    async clear() {
      try {
        await del(key, store());
        announce();
      } catch (error) {
        warnOnce(error);
      }
    },
    watch(listener) {
      if (!channel) return () => {};
      const onMessage = (event: MessageEvent<{ scope?: string }>) => {
        if (event.data?.scope === scope) listener();
      };
      channel.addEventListener('message', onMessage);
      return () => channel.removeEventListener('message', onMessage);
    },
  };
}

/** Removes every widget's cached state on this origin (tests, a "forget me" link). */
export async function clearAllUiState(): Promise<void> {
  try {
    await clearAll(idbStore());
  } catch (error) {
    warnOnce(error);
  }
}
