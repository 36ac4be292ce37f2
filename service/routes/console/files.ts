/** What an integration's visitors may attach (set here, read by the uploads), and their files for the conversation review. */
import type { ConsoleFileSettings, ConsoleFileSettingsView } from '../../../contract/console.js';
import { FILE_KINDS, MAX_ATTACHMENTS, MAX_FILE_BYTES } from '../../../contract/limits.js';
import type { FileKind } from '../../../contract/types.js';
import { isRecord, readJsonBody } from '../../http/body.js';
import { badRequest, notFound } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import type { FileSettings } from '../../storage/types.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { FILE_ID, fileResponse, fileSettingsOf } from '../files.js';
import { audit, requireAdmin } from './auth.js';
import { adminProject, findIntegration, requireConsoleProject } from './projects.js';

/** The settings in files; the project and integration in the directory; the admin and audit in the accounts. */
type FilesContext = ServiceContext<'files' | 'directory' | 'accounts'>;

const view = (s: FileSettings): ConsoleFileSettingsView => ({
  kinds: s.kinds,
  max_bytes: s.maxBytes,
  per_question: s.perQuestion,
  limits: { max_bytes: { ...MAX_FILE_BYTES }, per_question: MAX_ATTACHMENTS },
});

async function requireIntegration(ctx: FilesContext, projectId: string, integrationId: string) {
  await requireConsoleProject(ctx, projectId);
  await findIntegration(ctx, projectId, integrationId);
}

/** The body of a PUT, every field checked against the service's bounds. */
function parseSettings(body: unknown): FileSettings {
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const { kinds, max_bytes: maxBytes, per_question: perQuestion } = body as Partial<ConsoleFileSettings>;
  if (!Array.isArray(kinds) || kinds.some((k) => !FILE_KINDS.includes(k)))
    throw badRequest(`kinds must be a list of ${FILE_KINDS.join(', ')}.`);
  if (!Number.isInteger(perQuestion) || perQuestion! < 0 || perQuestion! > MAX_ATTACHMENTS)
    throw badRequest(`per_question must be a whole number from 0 to ${MAX_ATTACHMENTS}.`);
  if (!isRecord(maxBytes)) throw badRequest('max_bytes must give the largest file of each kind.');
  const sizes = Object.fromEntries(
    FILE_KINDS.map((kind) => {
      const value = maxBytes[kind];
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_FILE_BYTES[kind])
        throw badRequest(
          `max_bytes.${kind} must be a whole number of bytes from 1 to ${MAX_FILE_BYTES[kind]}.`,
        );
      return [kind, value];
    }),
  ) as Record<FileKind, number>;
  return { kinds: FILE_KINDS.filter((k) => kinds.includes(k)), maxBytes: sizes, perQuestion: perQuestion! };
}

/** GET …/integrations/{id}/files: the settings in force (the defaults until set) and the bounds. */
export async function getFileSettings(
  ctx: FilesContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  await requireAdmin(ctx, request);
  await requireIntegration(ctx, projectId, integrationId);
  return json(view(await fileSettingsOf(ctx, projectId, integrationId)));
}

/** PUT …/integrations/{id}/files: new settings, audited. */
export async function putFileSettings(
  ctx: FilesContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const settings = parseSettings(await readJsonBody(request));
  await requireIntegration(ctx, projectId, integrationId);
  if (!(await ctx.storage.files.putFileSettings(projectId, integrationId, settings)))
    throw notFound('No such integration.');
  await audit(ctx, info, admin.username, 'integration.files', projectId, integrationId, {
    kinds: settings.kinds,
    max_bytes: settings.maxBytes,
    per_question: settings.perQuestion,
  });
  return json(view(settings));
}

/**
 * GET …/files/{id}: a file of the project's conversations, only ever as a download. With
 * `?download=1` (the Download button's) it is audited (decision 719): a visitor's file that left
 * the console is on record; the thumbnails the conversation shows are reads of it, as its words are.
 */
export async function getConsoleFile(
  ctx: FilesContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  fileId: string,
): Promise<Response> {
  const { admin } = await adminProject(ctx, request, projectId);
  const file = FILE_ID.test(fileId) ? await ctx.storage.files.getFile(fileId) : undefined;
  if (!file || file.projectId !== projectId) throw notFound('No such file.');
  if (new URL(request.url).searchParams.get('download') === '1')
    await audit(ctx, info, admin.username, 'file.download', projectId, file.threadId, {
      file: file.id,
      name: file.name,
      kind: file.kind,
    });
  return fileResponse(file);
}
