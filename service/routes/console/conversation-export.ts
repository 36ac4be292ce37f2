/**
 * The Conversations page's export: every thread the list's filters match, as a download, read
 * page by page from the store and streamed, so a year of a busy project never sits in memory.
 */
import type { ConsoleMessage, ConsoleThreadDetail } from '../../../contract/console.js';
import type { ConversationFilter, ProjectRecord } from '../../storage/console-types.js';
import type { ThreadCursor } from '../../storage/types.js';
import type { RequestInfo } from '../context.js';
import { badRequest } from '../../http/errors.js';
import { audit } from './auth.js';
import {
  type ConversationsContext,
  type ThreadReader,
  filterOf,
  listConversations,
  threadDetail,
} from './conversations.js';
import { adminProject } from './projects.js';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The list's filters, by their names in its query (see `filterOf`). */
const FILTER_PARAMS = [
  'q',
  'integration_id',
  'start',
  'end',
  'downvoted',
  'uncertain',
  'handoff',
  'error',
  'tool_used',
  'stale_sources',
];

/** Threads read from the store at a time. */
const PAGE = 100;

/** One row per question: what a docs team sorts and reads in a spreadsheet. */
const CSV_COLUMNS = [
  'thread_id',
  'owner_key',
  'integration_id',
  'asked_at_utc',
  'question',
  'files',
  'answer',
  'answer_status',
  'failure',
  'uncertain',
  'sources',
  'sources_changed',
  'feedback',
] as const;

const REASONS: Record<string, string> = {
  incorrect: 'incorrect',
  irrelevant: 'irrelevant',
  unaddressed: 'did not answer the question',
};

/**
 * A cell as RFC 4180 writes it. Visitors and models write these words: a cell a spreadsheet
 * would read as a formula (`=`, `+`, `-`, `@`, a tab or a return first) starts with `'`, so
 * opening the file runs nothing (OWASP's CSV injection advice). So does what follows a
 * semicolon: a spreadsheet whose list separator is `;` (Excel in German or French) splits the
 * line there, quotes or not (a quote in mid-cell is text to it), and the words after it are a
 * cell of their own (decision 683).
 */
export function csvCell(value: string): string {
  const text = (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value).replace(/;(?=[=+\-@\t\r])/g, ";'");
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** "downvote (incorrect, irrelevant): the words", one reaction a line. */
function feedbackWords(answer: ConsoleMessage | undefined): string {
  return (answer?.feedback ?? [])
    .map((f) => {
      const comment = f.comment ?? {};
      const reasons = Object.keys(REASONS).filter((k) => comment[k] === true);
      const issue = typeof comment.issue === 'string' && comment.issue ? `: ${comment.issue}` : '';
      return `${f.reaction}${reasons.length ? ` (${reasons.map((r) => REASONS[r]).join(', ')})` : ''}${issue}`;
    })
    .join('\n');
}

/** A thread's rows: each question with the answer that follows it, if any. */
function csvRows(thread: ConsoleThreadDetail): string[] {
  const rows: string[] = [];
  thread.messages.forEach((question, i) => {
    if (question.role !== 'user') return;
    const next = thread.messages[i + 1];
    const answer = next?.role === 'assistant' ? next : undefined;
    const cells = [
      thread.id,
      // The API's "-" for no owner would be a guarded "'-" on every public visitor's row.
      thread.owner_key === '-' ? 'anonymous' : thread.owner_key,
      thread.integration_id,
      // What a spreadsheet reads as a date and time (ISO's T, Z and microseconds it reads as text).
      question.created_at.slice(0, 19).replace('T', ' '),
      question.content,
      question.attachments.map((f) => f.name).join('\n'),
      answer?.content ?? '',
      answer?.status ?? '',
      // Why it failed, as the conversation's page says it: the sheet is all its reader has.
      answer?.failure?.message ?? '',
      answer ? String(answer.uncertain) : '',
      (answer?.sources ?? []).map((s) => s.source_url).join('\n'),
      // The answer's cited pages changed or gone since it was written, as its page flags them.
      (answer?.stale_sources ?? []).map((s) => `${s.page}: ${s.source_url}`).join('\n'),
      feedbackWords(answer),
    ];
    rows.push(cells.map(csvCell).join(','));
  });
  return rows;
}

/**
 * The threads' lines, newest first as the list shows them. The first line (the CSV's header)
 * goes out before the store is read; each thread after it is read whole, as the page reads one.
 * The console's download and the `export-conversations` command both write these.
 */
export async function* exportLines(
  ctx: ThreadReader,
  project: ProjectRecord,
  filter: ConversationFilter,
  format: ExportFormat,
): AsyncGenerator<string> {
  // Excel reads a CSV without a byte-order mark in the machine's own code page.
  if (format === 'csv') yield `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
  let after: ThreadCursor | undefined;
  for (;;) {
    const page = await ctx.storage.conversations.searchThreads(project.id, filter, { limit: PAGE, after });
    for (const summary of page) {
      // A thread deleted since the page was read is left out.
      const thread = await ctx.storage.conversations.getThread(summary.id);
      if (!thread) continue;
      const detail = await threadDetail(ctx, project, thread, summary);
      yield format === 'csv'
        ? csvRows(detail)
            .map((row) => `${row}\r\n`)
            .join('')
        : `${JSON.stringify(detail)}\n`;
    }
    if (page.length < PAGE) return;
    const last = page[page.length - 1];
    after = { updatedAt: last.updatedAt, id: last.id };
  }
}

/** GET conversations: a page of the list, or with `format` every thread it matches as a file. */
export function listOrExportConversations(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  return new URL(request.url).searchParams.has('format')
    ? exportConversations(ctx, request, info, projectId)
    : listConversations(ctx, request, info, projectId);
}

/**
 * GET conversations?format=csv|jsonl (with the list's filters): the export, kept in the audit
 * log with its filters, as a read of every thread it holds.
 */
async function exportConversations(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  // Every visitor's words in one file leave the console's audit trail of reads: an admin's (decision 718).
  const { admin, project } = await adminProject(ctx, request, projectId, 'admin');
  const params = new URL(request.url).searchParams;
  const format = params.get('format') ?? '';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw badRequest(`format is one of ${EXPORT_FORMATS.join(', ')}.`);
  const kind = format as ExportFormat;
  const filter = filterOf(params);
  // The filters as the page's address has them (days as dates, flags by their names).
  await audit(ctx, info, admin.username, 'conversation.export', project.id, null, {
    format: kind,
    ...Object.fromEntries(FILTER_PARAMS.flatMap((k) => (params.get(k) ? [[k, params.get(k)]] : []))),
  });
  const lines = exportLines(ctx, project, filter, kind);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const day = new Date(ctx.clock.now()).toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'Content-Type': kind === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="conversations-${project.id.replace(/[^\w.-]/g, '_')}-${day}.${kind}"`,
      'Cache-Control': 'no-store',
    },
  });
}
