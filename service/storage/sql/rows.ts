/** What the SQL roles share: value conversions between rows and records, and the database's clock. */
import type { ActivityEvent, EndedOrphan, MessageRecord, ThreadMeta } from '../types.js';

/** The database's clock in epoch ms: leases compare instances on one clock, whatever theirs say. */
export const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export const num = (value: unknown) => Number(value);
export const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
export const json = (value: unknown) => JSON.stringify(value);

/** Events as the columns an `unnest` of a batch statement reads: kind, project, time, session, owner, integration. */
export function eventColumns(events: ActivityEvent[]): unknown[][] {
  return [
    events.map((e) => e.kind),
    events.map((e) => e.projectId),
    events.map((e) => e.at),
    events.map((e) => e.sessionToken),
    events.map((e) => e.owner),
    events.map((e) => e.integrationId),
  ];
}

/**
 * The end of a statement that ended orphans, after its `ended` CTE (each answer's id, thread_id,
 * status, and the counted_session and counted_integration its end cleared): for each one that
 * has a session to count under, at `at`, its `message` event (decision 525), and a `failed` event
 * when it ended as an error (decision 512), as its own instance's end would have written them; in
 * the statement that ended it, so they are written once whoever else ends it at the same time;
 * then the ended answers with their thread and project.
 */
export const ORPHAN_ENDS = (at: string) => `counted AS (
     INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
     SELECT k.kind, t.project_id, ${at}, e.counted_session, t.owner, e.counted_integration
     FROM ended e JOIN threads t ON t.id = e.thread_id
       CROSS JOIN LATERAL (VALUES ('message'), ('failed')) AS k(kind)
     WHERE e.counted_session IS NOT NULL AND (k.kind = 'message' OR e.status = 'error'))
   SELECT e.id, e.thread_id, t.project_id, e.status FROM ended e JOIN threads t ON t.id = e.thread_id`;

export const toEndedOrphan = (row: Record<string, unknown>): EndedOrphan => ({
  id: row.id as string,
  threadId: row.thread_id as string,
  projectId: row.project_id as string,
  status: row.status as EndedOrphan['status'],
});

export function toThread(row: Record<string, unknown>): ThreadMeta {
  return {
    id: row.id as string,
    projectId: row.project_id as string,
    integrationId: row.integration_id as string,
    owner: (row.owner as string | null) ?? null,
    title: row.title as string,
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toMessage(row: Record<string, unknown>): MessageRecord {
  return {
    id: row.id as string,
    role: row.role as MessageRecord['role'],
    content: row.content as string,
    sources: row.sources as MessageRecord['sources'],
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    status: row.status as MessageRecord['status'],
    toolCalls: row.tool_calls as MessageRecord['toolCalls'],
    activity: row.activity as MessageRecord['activity'],
    uncertain: row.uncertain as boolean,
    ...(row.prompt_tokens != null && {
      usage: { promptTokens: num(row.prompt_tokens), completionTokens: num(row.completion_tokens) },
    }),
    ...(Array.isArray(row.attachments) &&
      row.attachments.length > 0 && { attachments: row.attachments as MessageRecord['attachments'] }),
    ...(typeof row.failure_code === 'string' && {
      failure: {
        code: row.failure_code,
        message: (row.failure_message as string | null) ?? '',
        ...(typeof row.failure_reason === 'string' && { reason: row.failure_reason }),
      },
    }),
  };
}
