/** A widget release's files as the service keeps them, so that pages pinned to it keep loading (decision 741). */
export interface WidgetReleaseFiles {
  version: string;
  /** Each file's SRI hash (the release's sri.json): it names the files, and their bytes. */
  sri: Record<string, string>;
  /** Every file of `sri`, and `sri.json`; `gzip` when the host keeps it compressed too. */
  files: { name: string; body: Uint8Array; gzip?: Uint8Array }[];
}

/** A kept release without its bytes: what the console lists. */
export interface WidgetReleaseMeta {
  version: string;
  /** The files' bytes, compressed copies included. */
  bytes: number;
  storedAt: number;
  /** When a page last loaded one of its files (noted at most hourly per instance); null: never since it was stored. */
  loadedAt: number | null;
}

/** What keeping a release did: stored it, found it stored with the same files, or replaced other files under its version. */
export type KeepWidgetResult = 'stored' | 'kept' | 'replaced';
