/**
 * What the device's records hold, read back: every value from IndexedDB, another tab or a stash
 * is checked field by field, so a corrupt, older or newer record yields only what this version
 * knows, never a shape the views do not expect.
 */
import { en } from '../i18n/en.js';
import { toFileInfos, toSources, toThreadSummary } from '../api/validate.js';
import type { StoredMemory } from './device-memory-store.js';
import type { OutboxEntry } from './outbox.js';
import type { ChatMessage } from './types.js';

/**
 * What tabs share: everything bound to the owner, messages kept apart in chunks. `rev` grows with
 * every write of it, so a tab can tell another tab's message that came after its own write was
 * older than what it wrote.
 */
export type Head = Omit<StoredMemory, 'open' | 'threadListOpen' | 'messages'> & {
  chunks: string[];
  rev?: number;
};
/** A head as an older version may have written it. */
type StoredHead = Head & { queued?: OutboxEntry[] };

/** The one value `read` gives, or none where it throws (a record that is not what it should be). */
export function validOrNone<T>(read: () => T): T[] {
  try {
    return [read()];
  } catch {
    return [];
  }
}

const STATUSES = new Set<string>([
  'sending',
  'sent',
  'failed',
  'streaming',
  'complete',
  'stopped',
  'error',
  'interrupted',
  'waiting',
]);

/** A failure's `{placeholders}` read back (the files' names, the seconds), strings and numbers only, or its words would show `{files}`. */
function valuesOf(value: unknown): { values?: Record<string, string | number> } {
  if (!value || typeof value !== 'object') return {};
  const kept = Object.entries(value).filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  return kept.length ? { values: Object.fromEntries(kept) } : {};
}

/**
 * A stored message with the shape the views expect. Read back after a reload (`live` false), one
 * cut off mid-answer is marked so; followed live from another tab it keeps its status.
 */
export function toMessage(value: unknown, live: boolean): ChatMessage {
  const m = value as Partial<ChatMessage> | null;
  if (
    !m ||
    typeof m.id !== 'string' ||
    typeof m.content !== 'string' ||
    (m.role !== 'user' && m.role !== 'assistant') ||
    !STATUSES.has(m.status as string)
  ) {
    throw new TypeError('not a message');
  }
  // `waiting`: an older version's question sent offline, in the conversation: now one for Retry.
  const cut =
    (m.status as string) === 'waiting' || (!live && (m.status === 'streaming' || m.status === 'sending'));
  const status = cut ? (m.role === 'user' ? 'failed' : 'interrupted') : m.status!;
  // A key this version does not know (an older or newer record) reads as the generic failure.
  const key = m.error && typeof m.error.key === 'string' && m.error.key in en ? m.error.key : 'errorGeneric';
  const error =
    m.error && typeof m.error.message === 'string'
      ? {
          code: String(m.error.code),
          message: m.error.message,
          key,
          recoverable: m.error.recoverable === true,
          ...valuesOf(m.error.values),
        }
      : undefined;
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
    ...(Array.isArray(m.attachments) && m.attachments.length
      ? { attachments: toFileInfos(m.attachments) }
      : {}),
    // A question's key and first send (decisions 453, 455): a reload resends it under the same key.
    ...(typeof m.idempotencyKey === 'string' ? { idempotencyKey: m.idempotencyKey } : {}),
    ...(typeof m.sentAt === 'number' ? { sentAt: m.sentAt } : {}),
  };
}

const isStep = (a: unknown): a is NonNullable<ChatMessage['activity']>[number] =>
  !!a && typeof (a as { id?: unknown }).id === 'string' && typeof (a as { name?: unknown }).name === 'string';
const isCall = (c: unknown): c is NonNullable<ChatMessage['toolCalls']>[number] =>
  !!c &&
  typeof (c as { id?: unknown }).id === 'string' &&
  typeof (c as { displayName?: unknown }).displayName === 'string' &&
  typeof (c as { state?: unknown }).state === 'string';

export const toMessages = (value: unknown, live: boolean): ChatMessage[] =>
  Array.isArray(value) ? value.flatMap((m) => validOrNone(() => toMessage(m, live))) : [];

export const chunkIds = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];

/** Only the fields we know, with the types we expect: a corrupt or foreign record is ignored. */
export function sanitizeHead(value: unknown): Head | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Partial<StoredHead>;
  return {
    activeThreadId: typeof v.activeThreadId === 'string' ? v.activeThreadId : null,
    drafts:
      v.drafts && typeof v.drafts === 'object'
        ? Object.fromEntries(Object.entries(v.drafts).filter(([, text]) => typeof text === 'string'))
        : {},
    // `queued`: where an older version kept the follow-ups asked while an answer streamed.
    outbox: (Array.isArray(v.outbox) ? v.outbox : Array.isArray(v.queued) ? v.queued : [])
      .filter((q) => q && typeof q.id === 'string' && typeof q.text === 'string')
      .map(({ id, text, attachments, idempotencyKey }) => {
        const files = toFileInfos(attachments);
        return {
          id,
          text,
          ...(files.length ? { attachments: files } : {}),
          ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
        };
      }),
    threads: Array.isArray(v.threads)
      ? v.threads.flatMap((t) => validOrNone(() => toThreadSummary('Reading the device', t)))
      : [],
    owned: v.owned === true,
    ownerKey: typeof v.ownerKey === 'string' ? v.ownerKey : null,
    draftsAt: Number(v.draftsAt) || 0,
    chunks: chunkIds(v.chunks),
    rev: Number(v.rev) || 0,
  };
}
