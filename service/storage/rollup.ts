import { noConsoleCounts } from '../../contract/activity.js';
import type { ActivityEvent, ActivityRow, FeedbackRecord, ThreadCursor } from './types.js';

export const DAY_MS = 86_400_000;
const dayOf = (time: number) => Math.floor(time / DAY_MS);

export const newestFirst = (a: ThreadCursor, b: ThreadCursor) =>
  b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Rolls events and reactions up the way the SQL view does; shared so both stores agree. */
export function rollUp(
  events: Iterable<ActivityEvent>,
  feedback: Iterable<FeedbackRecord>,
  projectId: string,
  fromDay: number,
  toDay: number,
): ActivityRow[] {
  const rows = new Map<string, ActivityRow>();
  const row = (at: number, sessionToken: string, owner: string | null, integrationId: string | null) => {
    const day = dayOf(at);
    const key = `${day}\n${sessionToken}\n${integrationId ?? ''}`;
    let found = rows.get(key);
    if (!found) {
      found = {
        day,
        sessionToken,
        owner,
        integrationId: integrationId ?? '',
        ...noConsoleCounts(),
      };
      rows.set(key, found);
    }
    return found;
  };
  for (const e of events) {
    if (e.projectId !== projectId || dayOf(e.at) < fromDay || dayOf(e.at) > toDay) continue;
    const found = row(e.at, e.sessionToken, e.owner, e.integrationId);
    if (e.kind === 'usage') {
      found.prompt_tokens += e.promptTokens ?? 0;
      found.completion_tokens += e.completionTokens ?? 0;
    } else if (e.kind === 'failed') found.failed_answers += 1;
    else found[`${e.kind}s`] += 1;
  }
  for (const f of feedback) {
    if (f.projectId !== projectId || dayOf(f.at) < fromDay || dayOf(f.at) > toDay) continue;
    row(f.at, f.sessionToken, f.owner, f.integrationId)[f.reaction === 'upvote' ? 'upvotes' : 'downvotes'] +=
      1;
  }
  return [...rows.values()];
}
