import { ApiError, isAbortError } from '../api/errors.js';
import type { FileInfo, FileKind } from '../api/types.js';
import { FILE_KINDS, MAX_ATTACHMENTS, MAX_FILE_BYTES } from '../../contract/limits.js';
import type { UiStringKey } from '../i18n/en.js';

/** What the page allows the visitor to attach (the element's attributes, within §11's bounds). */
export interface AttachmentRules {
  kinds: readonly FileKind[];
  maxBytes: Readonly<Record<FileKind, number>>;
  maxFiles: number;
}

export const DEFAULT_RULES: AttachmentRules = {
  kinds: FILE_KINDS,
  maxBytes: MAX_FILE_BYTES,
  maxFiles: MAX_ATTACHMENTS,
};

/** A text to show, in the widget's language: its key and values. */
export interface Notice {
  key: UiStringKey;
  values?: Record<string, string | number>;
}

/** A file in the composer: uploading as soon as it is added, then ready to go with the question. */
export interface PendingFile {
  id: string;
  name: string;
  size: number;
  kind: FileKind;
  status: 'uploading' | 'ready' | 'failed';
  /** 0 to 1; where the transport reports none, 0 until it is done. */
  progress: number;
  info?: FileInfo;
  error?: Notice;
  /** A `blob:` URL of an image's own bytes, for its thumbnail (revoked when it goes). */
  preview?: string;
}

export interface AttachmentHooks {
  onChange(): void;
  rules(): AttachmentRules;
  /** Uploads one file, reporting progress (0 to 1); the session's client and the view's transport. */
  upload(file: File, onProgress: (fraction: number) => void, signal: AbortSignal): Promise<FileInfo>;
  /** "12 MB" in the visitor's language. */
  formatBytes(bytes: number): string;
  /** A file's bytes from the service (with the session's token). */
  fetchFile(fileId: string): Promise<Blob>;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
/** Markup and scripts, refused whatever else they claim (the service refuses them too). */
const MARKUP = /\.(svg|svgz|html?|xhtml|xml|xsl|mht|mhtml|hta)$/i;
const BINARY = /^(audio|video|font|model)\/|^application\/(zip|x-|vnd\.|octet-stream|gzip|java-archive)/;
const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|x?yaml|toml|javascript|typescript|sql|graphql|x-sh|x-python))/;

/**
 * The kind a file will be, from what the browser says of it: a guess the service settles from
 * the bytes. Null: it will be refused (markup, an archive, an executable, media).
 */
export function guessKind(file: { name: string; type: string }): FileKind | null {
  const type = file.type.toLowerCase();
  if (MARKUP.test(file.name) || /svg|html|xml/.test(type)) return null;
  if (IMAGE_TYPES.has(type)) return 'image';
  if (type === 'application/pdf' || /\.pdf$/i.test(file.name)) return 'pdf';
  if (TEXT_TYPES.test(type)) return 'text';
  if (type.startsWith('image/') || BINARY.test(type)) return null;
  // No type (a .log, a .ts the OS does not know): text, if its bytes are.
  return 'text';
}

let ids = 0;

/**
 * The files of the question being written, before it is sent: each checked against the page's
 * rules (a refusal is a notice in the visitor's words), uploaded at once with its progress, and
 * handed to the question when it goes. Framework-free; the bytes stay in memory only (a reload
 * loses files not sent yet, docs/reference.md says so).
 */
export class Attachments {
  #files: readonly PendingFile[] = [];
  #notice: Notice | null = null;
  readonly #uploads = new Map<string, AbortController>();
  /** `blob:` URLs of sent files' bytes, by file id: this tab's own uploads, and those fetched once. */
  #urls: ReadonlyMap<string, string> = new Map();
  readonly #fetching = new Map<string, Promise<string | null>>();
  readonly #hooks: AttachmentHooks;

  constructor(hooks: AttachmentHooks) {
    this.#hooks = hooks;
  }

  get files(): readonly PendingFile[] {
    return this.#files;
  }

  /** The last refusal or failure, until the next change by the visitor. */
  get notice(): Notice | null {
    return this.#notice;
  }

  /** Every file is uploaded (and there is one at least). */
  get ready(): boolean {
    return this.#files.length > 0 && this.#files.every((f) => f.status === 'ready');
  }

  get uploading(): boolean {
    return this.#files.some((f) => f.status === 'uploading');
  }

  /** The `blob:` URLs known so far, by file id (a new map when one is added). */
  get urls(): ReadonlyMap<string, string> {
    return this.#urls;
  }

  /**
   * A `blob:` URL of a sent file's bytes: this tab's own upload, or fetched once with the
   * session's token (a failure is not asked again until a reset). Null when it cannot be had.
   */
  fileUrl(fileId: string): Promise<string | null> {
    const known = this.#urls.get(fileId);
    if (known) return Promise.resolve(known);
    let pending = this.#fetching.get(fileId);
    if (!pending) {
      pending = this.#hooks.fetchFile(fileId).then(
        (blob) => {
          const url = URL.createObjectURL(blob);
          this.#urls = new Map(this.#urls).set(fileId, url);
          this.#hooks.onChange();
          return url;
        },
        () => null,
      );
      this.#fetching.set(fileId, pending);
    }
    return pending;
  }

  /** Adds what the visitor picked, dropped or pasted; what the rules refuse is named in the notice. */
  add(files: readonly File[]): void {
    const rules = this.#hooks.rules();
    let notice: Notice | null = null;
    const added: PendingFile[] = [];
    for (const file of files) {
      const kind = guessKind(file);
      if (this.#files.length + added.length >= rules.maxFiles) {
        notice = { key: 'tooManyFiles', values: { count: rules.maxFiles } };
        break;
      }
      if (!kind || !rules.kinds.includes(kind)) {
        notice = { key: 'fileTypeRefused', values: { name: file.name, allowed: '' } };
        continue;
      }
      if (file.size > rules.maxBytes[kind]) {
        notice = {
          key: 'fileTooLarge',
          values: { name: file.name, max: this.#hooks.formatBytes(rules.maxBytes[kind]) },
        };
        continue;
      }
      const pending: PendingFile = {
        id: `f${++ids}`,
        name: file.name || 'file',
        size: file.size,
        kind,
        status: 'uploading',
        progress: 0,
        ...(kind === 'image' && typeof URL.createObjectURL === 'function'
          ? { preview: URL.createObjectURL(file) }
          : {}),
      };
      added.push(pending);
      void this.#upload(pending, file);
    }
    this.#notice = notice;
    this.#set([...this.#files, ...added]);
  }

  /** Removes a file (its upload stops; the service deletes an unused one within a day). */
  remove(id: string): void {
    const file = this.#files.find((f) => f.id === id);
    if (!file) return;
    this.#uploads.get(id)?.abort();
    this.#uploads.delete(id);
    if (file.preview) URL.revokeObjectURL(file.preview);
    this.#notice = null;
    this.#set(this.#files.filter((f) => f !== file));
  }

  /**
   * The uploaded files for the question being sent, out of the tray; their thumbnails stay for its
   * bubble. A file added since Send, still uploading, stays in the tray for the next question.
   */
  take(): FileInfo[] {
    const infos = this.#files.flatMap((f) => (f.info ? [f.info] : []));
    const urls = new Map(this.#urls);
    for (const f of this.#files) if (f.info && f.preview) urls.set(f.info.file_id, f.preview);
    this.#urls = urls;
    this.#files = this.#files.filter((f) => !f.info);
    this.#notice = null;
    this.#hooks.onChange();
    return infos;
  }

  /** Asks the visitor to wait for uploads (Send while one runs). */
  waitNotice(): void {
    this.#notice = { key: 'waitForUploads' };
    this.#hooks.onChange();
  }

  /** Drops everything (a reset: another visitor, a wipe). */
  clear(): void {
    for (const controller of this.#uploads.values()) controller.abort();
    this.#uploads.clear();
    for (const f of this.#files) if (f.preview) URL.revokeObjectURL(f.preview);
    for (const url of this.#urls.values()) URL.revokeObjectURL(url);
    this.#urls = new Map();
    this.#fetching.clear();
    this.#notice = null;
    this.#set([]);
  }

  async #upload(pending: PendingFile, file: File): Promise<void> {
    const controller = new AbortController();
    this.#uploads.set(pending.id, controller);
    const update = (patch: Partial<PendingFile>) => {
      if (!this.#files.some((f) => f.id === pending.id) && !this.#uploads.has(pending.id)) return;
      this.#set(this.#files.map((f) => (f.id === pending.id ? { ...f, ...patch } : f)));
    };
    try {
      const info = await this.#hooks.upload(file, (progress) => update({ progress }), controller.signal);
      update({ status: 'ready', progress: 1, info, name: info.name, kind: info.kind });
    } catch (error) {
      if (isAbortError(error) || controller.signal.aborted) return;
      const notice = failureNotice(error, pending, this.#hooks);
      this.#notice = notice;
      update({ status: 'failed', error: notice });
    } finally {
      this.#uploads.delete(pending.id);
    }
  }

  #set(files: readonly PendingFile[]): void {
    this.#files = files;
    this.#hooks.onChange();
  }
}

/** Why the service refused a file, in the visitor's words. */
function failureNotice(error: unknown, file: PendingFile, hooks: AttachmentHooks): Notice {
  const status = error instanceof ApiError ? error.status : 0;
  if (status === 413)
    return {
      key: 'fileTooLarge',
      values: { name: file.name, max: hooks.formatBytes(hooks.rules().maxBytes[file.kind]) },
    };
  if (status === 415) return { key: 'fileTypeRefused', values: { name: file.name, allowed: '' } };
  // A public integration's files for the day are spent (decision 797): waiting will not help
  // today, sending or removing files will not either, and the question may go without them.
  if (status === 429 && error instanceof ApiError && error.code === 'budget_exhausted')
    return { key: 'filesRefusedToday' };
  if (status === 429) return { key: 'tooManyUnsentFiles' };
  return { key: 'fileUploadFailed', values: { name: file.name } };
}
