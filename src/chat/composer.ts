import type { ApiClient } from '../api/api-client.js';
import type { FileInfo, Transport } from '../api/types.js';
import {
  Attachments,
  DEFAULT_RULES,
  type AttachmentRules,
  type Notice,
  type PendingFile,
} from './attachments.js';

/** What the page sets for the composer's files (the element's attributes and its attachment view). */
export interface ComposerOptions {
  /** What the page lets the visitor attach (§11); read at every file added. */
  attachmentRules?: () => AttachmentRules;
  /** How an upload travels, with its progress (the attachment view's XMLHttpRequest); fetch when absent. */
  uploadTransport?: (onProgress: (fraction: number) => void) => Promise<Transport | undefined>;
  /** "12 MB" in the visitor's language. */
  formatBytes?: (bytes: number) => string;
}

export interface ComposerHooks {
  onChange(): void;
  /** The thread on screen: each thread keeps its own draft. */
  threadId(): string | null;
  client(): ApiClient;
  /**
   * Sends a question as the session does (now, or through the outbox); false when it did not go.
   * `files` are taken from the tray only once it goes.
   */
  send(text: string, files?: () => readonly FileInfo[]): Promise<boolean>;
}

/** The files of the question being written, and the last refusal or failure. */
export interface Tray {
  files: readonly PendingFile[];
  notice: Notice | null;
}

/**
 * What the visitor is writing before it goes: a draft per thread and the next question's files
 * (each uploaded as it is added), sent together once every file is ready. No DOM.
 */
export class Composer {
  readonly attachments: Attachments;
  /** Drafts by thread id ('' for a new conversation), as the device remembers them. */
  drafts: Readonly<Record<string, string>> = {};
  readonly #hooks: ComposerHooks;

  constructor(hooks: ComposerHooks, options: ComposerOptions) {
    this.#hooks = hooks;
    this.attachments = new Attachments({
      onChange: () => hooks.onChange(),
      rules: () => options.attachmentRules?.() ?? DEFAULT_RULES,
      formatBytes: options.formatBytes ?? ((bytes) => `${Math.round(bytes / 100_000) / 10} MB`),
      upload: async (file, onProgress, signal) => {
        const transport = await options.uploadTransport?.(onProgress);
        return hooks.client().uploadFile(file, file.name, { signal, transport });
      },
      fetchFile: (fileId) => hooks.client().fileBlob(fileId),
    });
  }

  /** The draft of the thread on screen. */
  get draft(): string {
    return this.drafts[this.#hooks.threadId() ?? ''] ?? '';
  }

  /** The tray as the composer shows it: a new object at every change. */
  get tray(): Tray {
    const { files, notice } = this.attachments;
    return { files, notice };
  }

  setDraft(text: string, threadId = this.#hooks.threadId()): void {
    const key = threadId ?? '';
    const { [key]: _replaced, ...others } = this.drafts;
    this.drafts = text ? { ...others, [key]: text } : others;
    this.#hooks.onChange();
  }

  /** A question went from `threadId` (from here or the page's send()): the draft that was that text empties. */
  sent(threadId: string | null, text: string): void {
    if (text === this.drafts[threadId ?? '']) this.setDraft('', threadId);
  }

  /**
   * Sends what the composer holds: its text and its files, once every file is uploaded (else the
   * visitor is asked to wait, or to remove what failed), and when `approve` allows it. False when
   * nothing went.
   */
  async send(text: string, approve: () => boolean = () => true): Promise<boolean> {
    const { attachments } = this;
    if (attachments.uploading) {
      attachments.waitNotice();
      return false;
    }
    if (attachments.files.length && !attachments.ready) return false;
    if (!text.trim() && !attachments.files.length) return false;
    // The page may veto it (`agent-chat-message-send`): then text and files stay in the composer.
    if (!approve()) return false;
    // The files leave the tray when the question goes, not before: one refused (the outbox is
    // full, the chosen conversation could not be read) keeps them, as it keeps the text.
    return this.#hooks.send(text, attachments.files.length ? () => attachments.take() : undefined);
  }

  /** Drops every draft and file (a reset: another visitor, a wipe). */
  clear(): void {
    this.drafts = {};
    this.attachments.clear();
  }
}
