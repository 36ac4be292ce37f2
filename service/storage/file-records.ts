/**
 * The files visitors attach to questions (wire contract §11): their bytes and what the service
 * made of them, what one question lists, and what an integration allows.
 */
import type { FileKind } from '../../contract/types.js';

export type { FileKind };

/** A file as a question lists it: the file's id and what the upload answered. */
export interface AttachmentRecord {
  id: string;
  name: string;
  size: number;
  contentType: string;
  kind: FileKind;
}

/** A stored file without its bytes. */
export interface FileMeta extends AttachmentRecord {
  projectId: string;
  integrationId: string;
  /** Who uploaded it: `owner:<id>`, or for a session without owner `session:<token hash>` (as voters are named). */
  uploader: string;
  createdAt: number;
  /** The thread whose question uses it; null until a question does (it is then deleted with the thread). */
  threadId: string | null;
}

export interface StoredFile extends FileMeta {
  bytes: Uint8Array;
}

/** What an integration allows its visitors to attach (set in the console). */
export interface FileSettings {
  /** The kinds taken; empty: no files at all. */
  kinds: FileKind[];
  /** The largest file of each kind, in bytes, at most the service's (`MAX_FILE_BYTES`). */
  maxBytes: Record<FileKind, number>;
  /** Files one question may carry, 0 to `MAX_ATTACHMENTS` (0: no files). */
  perQuestion: number;
}

/** How much a store keeps of files no question uses yet, checked in the statement that stores one. */
export interface FileQuota {
  /** Unused files one uploader may hold. */
  uploaderFiles: number;
  /** Their bytes. */
  uploaderBytes: number;
  /** Bytes of unused files one integration may hold (across its visitors). */
  integrationBytes: number;
  /**
   * Bytes, used or not, the visitors of a public integration may upload to it in a UTC day
   * (decision 797): anyone may start its sessions, and a question's files stay with its thread.
   */
  publicDayBytes: number;
}

/** `stored`, or which quota refused the file (nothing was written). */
export type PutFileResult = 'stored' | 'uploader_quota' | 'integration_quota' | 'public_day_quota';
