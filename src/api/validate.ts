import { ProtocolError } from './errors.js';
import type {
  AgentActivity,
  FileInfo,
  Source,
  ThreadDetail,
  ThreadMessage,
  ThreadPage,
  ThreadSummary,
  ToolCall,
} from './types.js';

/**
 * Checks service JSON (wire contract §5) at the API edge, so nothing past it handles a shape it
 * did not expect and nothing malformed reaches the screen or the device. Extra fields are
 * dropped; a missing or mistyped required field is a ProtocolError naming it.
 */

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(what: string, path: string, expected: string): never {
  throw new ProtocolError(
    `${what}: the service answered an unexpected shape (${path} should be ${expected}).`,
  );
}

function field<T>(
  what: string,
  value: Json,
  path: string,
  key: string,
  check: (v: unknown) => v is T,
  expected: string,
): T {
  const v = value[key];
  if (!check(v)) fail(what, `${path}.${key}`, expected);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** A step the agent ran on the service, or null when the record does not have the contract's shape. */
export function toActivity(content: Json): AgentActivity | null {
  const { id, name, status, summary, num_results: count } = content;
  if (typeof id !== 'string' || typeof name !== 'string') return null;
  if (status !== 'started' && status !== 'completed' && status !== 'error') return null;
  return {
    id,
    name,
    status,
    summary: typeof summary === 'string' ? summary : null,
    numResults: typeof count === 'number' && Number.isFinite(count) ? count : null,
  };
}

/** A tool call (§7) as a stream record or a resumed message lists it; null without an id or a name. */
export function toToolCall(call: Json): ToolCall | null {
  if (typeof call.id !== 'string' || typeof call.name !== 'string') return null;
  return { id: call.id, name: call.name, arguments: isObject(call.arguments) ? call.arguments : {} };
}

export function toToolCalls(value: unknown): ToolCall[] {
  return Array.isArray(value) ? value.filter(isObject).flatMap((call) => toToolCall(call) ?? []) : [];
}

const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';

export function toThreadSummary(what: string, value: unknown, path = 'thread'): ThreadSummary {
  if (!isObject(value)) fail(what, path, 'an object');
  return {
    id: field(what, value, path, 'id', isString, 'a string'),
    title: field(what, value, path, 'title', isString, 'a string'),
    created_at: field(what, value, path, 'created_at', isString, 'a string'),
    updated_at: field(what, value, path, 'updated_at', isString, 'a string'),
    ...(typeof value.preview === 'string' && value.preview ? { preview: value.preview } : {}),
  };
}

export function toThreadPage(what: string, value: unknown): ThreadPage {
  if (!isObject(value) || !Array.isArray(value.threads)) fail(what, 'threads', 'an array');
  return {
    threads: value.threads.map((t, i) => toThreadSummary(what, t, `threads[${i}]`)),
    next_cursor:
      field(
        what,
        value,
        '',
        'next_cursor',
        (v): v is string | null => v === undefined || isNullableString(v),
        'a string or null',
      ) ?? null,
  };
}

/** Sources are decoration: entries without a URL are dropped rather than failing the thread. */
export function toSources(value: unknown): Source[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).flatMap((item) =>
    typeof item.source_url === 'string'
      ? [
          {
            title: typeof item.title === 'string' ? item.title : item.source_url,
            subtitle: typeof item.subtitle === 'string' ? item.subtitle : null,
            source_url: item.source_url,
            source_type: typeof item.source_type === 'string' ? item.source_type : 'unknown',
            // Version 4: the section the answer used, shown under the title (`score` is for
            // operators and not kept); a wrong type is dropped, not a failure.
            ...(typeof item.section === 'string' && { section: item.section }),
          },
        ]
      : [],
  );
}

const KINDS = new Set(['image', 'text', 'pdf']);

/** A file the service took (§11), or null for anything else: decoration of a question, never fatal. */
export function toFileInfo(value: unknown): FileInfo | null {
  if (!isObject(value)) return null;
  const { file_id: id, name, size, content_type: type, kind } = value;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof type !== 'string') return null;
  if (typeof size !== 'number' || !Number.isFinite(size) || !KINDS.has(kind as string)) return null;
  return { file_id: id, name, size, content_type: type, kind: kind as FileInfo['kind'] };
}

/** The files of a question: those that read as files. */
export const toFileInfos = (value: unknown): FileInfo[] =>
  Array.isArray(value) ? value.flatMap((f) => toFileInfo(f) ?? []) : [];

const ROLES = new Set(['user', 'assistant']);
const STATUSES = new Set(['complete', 'stopped', 'error', 'streaming']);

function toThreadMessage(what: string, value: unknown, path: string): ThreadMessage {
  if (!isObject(value)) fail(what, path, 'an object');
  const role = field(
    what,
    value,
    path,
    'role',
    (v): v is ThreadMessage['role'] => ROLES.has(v as string),
    '"user" or "assistant"',
  );
  const status =
    value.status === undefined
      ? 'complete'
      : field(
          what,
          value,
          path,
          'status',
          (v): v is ThreadMessage['status'] => STATUSES.has(v as string),
          'a known status',
        );
  const qa = value.question_answer_id;
  // Feedback is decoration too: an unknown reaction reads as none rather than failing the thread.
  const reaction = value.reaction === 'upvote' || value.reaction === 'downvote' ? value.reaction : null;
  return {
    id: field(what, value, path, 'id', isString, 'a string'),
    role,
    content: field(what, value, path, 'content', isString, 'a string'),
    sources: toSources(value.sources),
    created_at: typeof value.created_at === 'string' ? value.created_at : '',
    status,
    ...(typeof qa === 'string' ? { question_answer_id: qa } : {}),
    // §7 additions, decoration only: malformed entries are dropped, never fail the thread.
    ...(Array.isArray(value.activity)
      ? { activity: value.activity.filter(isObject).flatMap((a) => toActivity(a) ?? []) }
      : {}),
    ...(Array.isArray(value.tool_calls)
      ? {
          tool_calls: value.tool_calls.filter(isObject).flatMap((source) => {
            const call = toToolCall(source);
            if (!call) return [];
            return [
              {
                ...call,
                status: source.status === 'completed' ? ('completed' as const) : ('error' as const),
                ...(typeof source.error === 'string' ? { error: source.error } : {}),
              },
            ];
          }),
        }
      : {}),
    ...(role === 'assistant' ? { reaction } : {}),
    ...(Array.isArray(value.attachments) && value.attachments.length
      ? { attachments: toFileInfos(value.attachments) }
      : {}),
  };
}

export function toThreadDetail(what: string, value: unknown): ThreadDetail {
  const summary = toThreadSummary(what, value);
  const messages = (value as Json).messages;
  if (!Array.isArray(messages)) fail(what, 'thread.messages', 'an array');
  return { ...summary, messages: messages.map((m, i) => toThreadMessage(what, m, `messages[${i}]`)) };
}
