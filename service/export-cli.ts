import { once } from 'node:events';
import { open as openFile, rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { HttpError } from './http/errors.js';
import { EXPORT_FORMATS, type ExportFormat, exportLines } from './routes/console/conversation-export.js';
import { filterOf } from './routes/console/conversations.js';
import { openStorage, withStores } from './storage/open.js';
import type { Stores } from './storage/types.js';

const USAGE =
  'usage: agent-chat-service export-conversations --project ID [--format csv|jsonl] [--start YYYY-MM-DD] [--end YYYY-MM-DD] [--integration ID] [--text WORDS] [--only downvoted,uncertain,handoff,error,tool_used,stale_sources] [--out FILE]  (--data DIR or DATABASE_URL)';

/** The console list's flags, as `--only` names them. */
const ONLY = ['downvoted', 'uncertain', 'handoff', 'error', 'tool_used', 'stale_sources'];

export interface ExportOptions {
  project?: string;
  format?: string;
  start?: string;
  end?: string;
  integration?: string[];
  text?: string;
  only?: string[];
  out?: string;
}

/** Where the lines go: the file's lines to `write` (stdout without --out), what went wrong to `error`. */
export interface ExportOutput {
  stdout: Writable;
  error(line: string): void;
}

const processOutput: ExportOutput = { stdout: process.stdout, error: (line) => console.error(line) };

/** The options as the console's list names its filters; a string when one is wrong. */
function queryOf(options: ExportOptions): URLSearchParams | string {
  const params = new URLSearchParams();
  if ((options.integration?.length ?? 0) > 1) return 'one --integration at most.';
  for (const [name, value] of [
    ['start', options.start],
    ['end', options.end],
    ['integration_id', options.integration?.[0]],
    ['q', options.text],
  ] as const)
    if (value) params.set(name, value);
  for (const flag of (options.only ?? []).flatMap((o) => o.split(',')).filter(Boolean)) {
    const name = flag.trim().replaceAll('-', '_');
    if (!ONLY.includes(name)) return `--only takes ${ONLY.join(', ')}; not ${flag}.`;
    params.set(name, '1');
  }
  return params;
}

/** Writes every line, waiting when the stream asks to (a pipe to a slower program). */
async function writeAll(lines: AsyncIterable<string>, to: Writable): Promise<void> {
  for await (const line of lines) if (!to.write(line)) await once(to, 'drain');
}

/** The lines into `path`, by way of a file beside it renamed when whole; what failed, if anything (and no file). */
async function writeFile(lines: AsyncIterable<string>, path: string): Promise<string | undefined> {
  const partial = `${path}.partial`;
  try {
    const file = await openFile(partial, 'w');
    try {
      for await (const line of lines) await file.write(line);
    } finally {
      await file.close();
    }
    await rename(partial, path);
    return undefined;
  } catch (error) {
    await rm(partial, { force: true });
    return String(error);
  }
}

/**
 * `agent-chat-service export-conversations --project P`: the console's Conversations download
 * (decision 611) for a script or a cron job: every thread the filters match, newest first, as
 * CSV (one row a question) or JSON Lines (a thread a line), to stdout or `--out FILE` (written
 * beside it and renamed when whole, so a failed export leaves no half file). Audited by `cli`.
 * The exit code: 0, 1 with the reason on stderr, 2 for a wrong call. The embedded store takes
 * one process: stop the service first, or download from the console.
 */
export async function exportConversationsCommand(
  args: string[],
  options: ExportOptions,
  store: { databaseUrl?: string; dataDir: string },
  out: ExportOutput = processOutput,
  open: (store: { databaseUrl?: string; dataDir: string }) => Promise<Stores> = openStorage,
): Promise<number> {
  const fail = (message: string, code = 1) => {
    out.error(`agent-chat-service export-conversations: ${message}`);
    return code;
  };
  const { project: projectId, format = 'csv' } = options;
  if (args.length || !projectId) return fail(USAGE, 2);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    return fail(`--format is one of ${EXPORT_FORMATS.join(', ')}; not ${format}.`, 2);
  const query = queryOf(options);
  if (typeof query === 'string') return fail(query, 2);
  let filter;
  try {
    filter = filterOf(query);
  } catch (error) {
    if (error instanceof HttpError) return fail(error.message, 2);
    throw error;
  }
  return withStores(
    () => open(store),
    (message) => fail(`${message} Or download from the console.`),
    async (storage) => {
      const project = await storage.directory.getProject(projectId);
      if (!project) return fail(`no project ${projectId}.`);
      await storage.accounts.appendAudit({
        at: Date.now(),
        actor: 'cli',
        action: 'conversation.export',
        projectId: project.id,
        target: null,
        detail: { format, ...Object.fromEntries(query) },
        address: null,
      });
      const lines = exportLines({ storage }, project, filter, format as ExportFormat);
      if (!options.out) await writeAll(lines, out.stdout);
      const failed = options.out && (await writeFile(lines, options.out));
      return failed ? fail(`${failed}; nothing was written to ${options.out}.`) : 0;
    },
  );
}
