/**
 * A visitor's files (§11): the upload, read while it streams and typed from its bytes, within
 * what the integration allows and the service's quotas of unused files; the download, to the
 * uploader only and only as an attachment; and the checks a question's `attachments` pass.
 */
import { FILE_KINDS, MAX_ATTACHMENTS, MAX_FILE_BYTES } from '../../contract/limits.js';
import type { FileInfo, FileKind } from '../../contract/types.js';
import { savedFileName } from '../../contract/saved-name.js';
import { HttpError, badRequest, notFound, unknownIntegration } from '../http/errors.js';
import { attachmentDisposition, safeFileName } from '../http/file-name.js';
import {
  MAX_IMAGE_PIXELS,
  MAX_IMAGE_SIDE,
  TEXT,
  type Detected,
  detectHead,
  imageSize,
  isText,
} from '../http/file-type.js';
import { boundaryOf, readFilePart } from '../http/multipart.js';
import { requireOrigin } from '../http/origins.js';
import { CORS_HEADERS, json } from '../http/responses.js';
import { DAY_MS, secondsToNextUtcDay, utcDay } from '../kernel/clock.js';
import { randomId } from '../kernel/ids.js';
import type { AttachmentContent } from '../agents/types.js';
import type {
  AttachmentRecord,
  FileMeta,
  FileSettings,
  PutFileResult,
  SessionRecord,
  StoredFile,
} from '../storage/types.js';
import { type RequestInfo, type ServiceContext, requireProject, requireSession } from './context.js';
import { voterOf } from './visibility.js';
import { requireOwnIntegration } from './public-sessions.js';

/** Files and their settings; the session (directory) and its rate window (rates): an upload counts as an agent call. */
type FilesContext = ServiceContext<'files' | 'directory' | 'rates'>;

export const FILE_ID = /^file_[0-9a-f]{32}$/;

/** What an integration allows when its console set nothing: §11's defaults. */
const DEFAULT_FILE_SETTINGS: FileSettings = {
  kinds: [...FILE_KINDS],
  maxBytes: { ...MAX_FILE_BYTES },
  perQuestion: MAX_ATTACHMENTS,
};

/** The integration's settings, within the service's bounds whatever is stored. */
export async function fileSettingsOf(
  ctx: ServiceContext<'files'>,
  projectId: string,
  integrationId: string,
): Promise<FileSettings> {
  const stored = await ctx.storage.files.fileSettings(projectId, integrationId);
  if (!stored) return DEFAULT_FILE_SETTINGS;
  return {
    kinds: FILE_KINDS.filter((k) => stored.kinds.includes(k)),
    maxBytes: Object.fromEntries(
      FILE_KINDS.map((k) => [k, Math.min(stored.maxBytes[k] ?? MAX_FILE_BYTES[k], MAX_FILE_BYTES[k])]),
    ) as Record<FileKind, number>,
    perQuestion: Math.max(0, Math.min(stored.perQuestion, MAX_ATTACHMENTS)),
  };
}

const KIND_NAMES: Record<FileKind, string> = {
  image: 'images (PNG, JPEG, WebP, GIF)',
  text: 'text (plain, Markdown, CSV, JSON, source code, logs)',
  pdf: 'PDF',
};

function unsupported(settings: FileSettings): HttpError {
  const allowed = settings.perQuestion > 0 ? settings.kinds.map((k) => KIND_NAMES[k]).join(', ') : '';
  return new HttpError(
    415,
    'unsupported_file_type',
    allowed ? `This file type is not allowed here. Allowed: ${allowed}.` : 'This site takes no files.',
    { Connection: 'close' },
  );
}

const tooLarge = (kind: FileKind | null, limit: number) =>
  new HttpError(
    413,
    'file_too_large',
    `The file is larger than ${Math.floor(limit / 1_000_000) || limit / 1_000_000} MB${kind ? ` (the limit for ${kind} files)` : ''}.`,
    { Connection: 'close' },
  );

/** The part's type from its bytes, checked whole once read: text is UTF-8 without NUL, an image has sane dimensions. */
function checkWhole(detected: Detected | 'maybe_text', bytes: Uint8Array, settings: FileSettings): Detected {
  if (detected === 'maybe_text') {
    if (!isText(bytes)) throw unsupported(settings);
    return TEXT;
  }
  if (detected.kind === 'image') {
    const size = imageSize(bytes, detected.contentType);
    if (!size)
      throw new HttpError(415, 'unsupported_file_type', 'The image is damaged: its size cannot be read.');
    if (
      size.width > MAX_IMAGE_SIDE ||
      size.height > MAX_IMAGE_SIDE ||
      size.width * size.height > MAX_IMAGE_PIXELS
    )
      throw new HttpError(
        413,
        'file_too_large',
        `The image is ${size.width} × ${size.height} pixels; at most ${MAX_IMAGE_SIDE} on a side and ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are taken.`,
      );
  }
  return detected;
}

export const fileInfo = (f: AttachmentRecord): FileInfo => ({
  file_id: f.id,
  name: f.name,
  size: f.size,
  content_type: f.contentType,
  kind: f.kind,
});

/** Reads the one `file` part within the integration's limits: its kind from its first bytes, its size counted as it streams. */
async function readUpload(request: Request, settings: FileSettings) {
  const allowed = settings.perQuestion > 0 ? settings.kinds : [];
  if (!allowed.length) throw unsupported(settings);
  const largest = Math.max(...allowed.map((k) => settings.maxBytes[k]));
  const boundary = boundaryOf(request.headers.get('Content-Type'));
  // The multipart framing adds a few hundred bytes; a declared length far past the limit is refused unread.
  if (Number(request.headers.get('Content-Length') ?? 0) > largest + 16 * 1024) throw tooLarge(null, largest);
  let detected: Detected | 'maybe_text' | null = null;
  const part = await readFilePart(
    request.body,
    boundary,
    (head) => {
      detected = detectHead(head);
      const kind = detected === 'maybe_text' ? 'text' : detected?.kind;
      if (!kind || !allowed.includes(kind)) throw unsupported(settings);
      return settings.maxBytes[kind];
    },
    (limit) => tooLarge(detected === 'maybe_text' ? 'text' : (detected?.kind ?? null), limit),
  );
  if (!part.bytes.length) throw badRequest('The file is empty.');
  return { part, detected: checkWhole(detected!, part.bytes, settings) };
}

/** POST …/agent/files/?integration_id=…: one file, 201 with what the service made of it. */
export async function uploadFile(
  ctx: FilesContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project, info);
  const integrationId = new URL(request.url).searchParams.get('integration_id') ?? '';
  if (!project.integrationIds.includes(integrationId)) throw unknownIntegration(integrationId);
  requireOrigin(project, request, integrationId);
  requireOwnIntegration(session, integrationId);
  const { part, detected } = await readUpload(request, await fileSettingsOf(ctx, projectId, integrationId));
  const file: StoredFile = {
    id: randomId('file'),
    projectId,
    integrationId,
    uploader: voterOf(session),
    name: safeFileName(part.filename),
    contentType: detected.contentType,
    kind: detected.kind,
    size: part.bytes.length,
    createdAt: ctx.clock.now(),
    threadId: null,
    bytes: part.bytes,
  };
  // A public integration's files count by the day too: a question's files stay with its thread,
  // and anyone may start its sessions (decision 797).
  const day = project.integrations.get(integrationId)?.public ? utcDay(file.createdAt) * DAY_MS : undefined;
  const stored = await ctx.storage.files.putFile(file, ctx.limits.files, day);
  if (stored !== 'stored') throw quotaRefusal(stored, integrationId, file.createdAt);
  return json(fileInfo(file), 201);
}

/** The 429 of a quota that refused a file, in words that say when it is taken again. */
function quotaRefusal(refused: Exclude<PutFileResult, 'stored'>, integrationId: string, now: number) {
  if (refused === 'public_day_quota')
    return new HttpError(
      429,
      'budget_exhausted',
      `The visitors of integration ${integrationId} have sent today's most of files; files are taken again at 00:00 UTC.`,
      { 'Retry-After': String(secondsToNextUtcDay(now)) },
    );
  return new HttpError(
    429,
    'rate_limited',
    refused === 'uploader_quota'
      ? 'Too many files are waiting to be sent: send or remove some first (unsent files are deleted after 24 hours).'
      : 'This site holds too many unsent files right now; try again later.',
    { 'Retry-After': '3600' },
  );
}

/** A file the session may see: its uploader's (the owner across sessions, else the one session). */
async function visibleFile(ctx: ServiceContext<'files'>, session: SessionRecord, fileId: string) {
  if (!FILE_ID.test(fileId)) throw notFound('No such file.');
  const file = await ctx.storage.files.getFile(fileId);
  if (!file || file.projectId !== session.projectId || file.uploader !== voterOf(session))
    throw notFound('No such file.');
  return file;
}

/** The bytes, only ever as a download: never shown inline, never sniffed, never cached. */
export function fileResponse(file: StoredFile): Response {
  return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      ...CORS_HEADERS,
      'Content-Type': file.contentType,
      'Content-Length': String(file.bytes.length),
      'Content-Disposition': attachmentDisposition(savedFileName(file.name, file.contentType)),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
      // Were it opened as a page after all, it could run nothing and reach nothing.
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  });
}

/** GET …/agent/files/{fileId}/: the uploader's file (§11's owner rules), else 404. */
export async function downloadFile(
  ctx: FilesContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  fileId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  return fileResponse(await visibleFile(ctx, session, fileId));
}

/** A question's `attachments` (§4): files of this session's uploader, free or already in this thread, allowed here. */
export async function questionFiles(
  ctx: ServiceContext<'files'>,
  session: SessionRecord,
  ids: string[],
  target: { integrationId: string; threadId: string | null },
): Promise<AttachmentRecord[]> {
  if (!ids.length) return [];
  const settings = await fileSettingsOf(ctx, session.projectId, target.integrationId);
  if (ids.length > settings.perQuestion)
    throw badRequest(`A question here may carry at most ${settings.perQuestion} files.`);
  const found = new Map<string, FileMeta>((await ctx.storage.files.describeFiles(ids)).map((f) => [f.id, f]));
  return ids.map((id, i) => {
    const file = found.get(id);
    if (!file || file.projectId !== session.projectId || file.uploader !== voterOf(session))
      throw new HttpError(
        400,
        // A code of its own: the client cannot send it again as it is, and may offer to send the text without it.
        'file_unavailable',
        `attachments[${i}] is not a file this session uploaded (or it expired).`,
      );
    if (file.threadId !== null && file.threadId !== target.threadId)
      throw badRequest(`attachments[${i}] belongs to another conversation.`);
    if (!settings.kinds.includes(file.kind))
      throw badRequest(`attachments[${i}] is a kind of file not allowed here.`);
    return { id: file.id, name: file.name, size: file.size, contentType: file.contentType, kind: file.kind };
  });
}

/** The files' bytes for the agent, in the question's order; a file gone meanwhile (its thread deleted) is left out. */
export async function withBytes(
  ctx: ServiceContext<'files'>,
  files: AttachmentRecord[],
): Promise<AttachmentContent[]> {
  const loaded = await Promise.all(files.map((f) => ctx.storage.files.getFile(f.id)));
  return files.flatMap((f, i) => (loaded[i] ? [{ ...f, bytes: loaded[i].bytes }] : []));
}
