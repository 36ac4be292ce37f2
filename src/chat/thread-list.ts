import type { ApiClient } from '../api/api-client.js';
import { ApiError, isAbortError } from '../api/errors.js';
import type { ThreadDetail, ThreadSummary } from '../api/types.js';
import { describeError } from './describe-error.js';
import type { ErrorInfo } from './types.js';

/**
 * idle: nothing asked of the service yet (a cached list may show);
 * unavailable: the session has no owner (403), so there are no threads to show.
 */
export type ThreadListStatus = 'idle' | 'loading' | 'ready' | 'error' | 'unavailable';

/**
 * Why there is no list: nobody is signed in (signing in would show one), or the site has no
 * sign-in at all (a public integration, whose visitors are always anonymous: decision 445).
 */
export type NoHistory = 'signed-out' | 'public';

export interface ThreadListSnapshot {
  status: ThreadListStatus;
  threads: readonly ThreadSummary[];
  nextCursor: string | null;
  loadingMore: boolean;
  /** Why it could not load (`error`), or why a delete or rename was refused (`ready`, rows as they were). */
  error?: ErrorInfo;
  /** Why `unavailable`, when known before asking (a 403 leaves it out: nobody signed in). */
  noHistory?: NoHistory;
}

export const PAGE_SIZE = 20;

export interface ThreadListHooks {
  onChange(snapshot: ThreadListSnapshot): void;
  /** Why there are no threads to ask for, when that is known (owner key `-`, or a public integration); else false. */
  noHistory?(): NoHistory | false;
  /** The list answered 403 after it had answered as an owner: someone else is signed in now. */
  onOwnerLost?(): void;
  /** A thread could not be read, renamed or deleted (the list stays as it was). */
  onError?(error: ErrorInfo): void;
  /** The service answered a page of the list: the rows are its word, not a change made here. */
  onAnswered?(): void;
  /** Holds a session (minting one if none is held), so noHistory reads its owner key. */
  session?(): Promise<void>;
}

/**
 * The owner's thread list: whether it is open, paged loading, rename and deletion, and clean-up
 * of stale entries. No DOM.
 */
export class ThreadList {
  #state: ThreadListSnapshot = { status: 'idle', threads: [], nextCursor: null, loadingMore: false };
  #isOpen = false;
  /** The visitor (or the page) opened or closed the list: what the device remembered no longer applies. */
  #chosen = false;
  #request?: AbortController;
  /** The list went out of date while a load was under way, whose answer may predate the change. */
  #staleLoad = false;
  /** Deletions under way; clear() abandons them with everything else. */
  #deletions = new AbortController();
  /**
   * Threads deleted (or found gone) since the list was cleared: a page asked for before the
   * deletion reached the service may still hold one, and must not bring it back.
   */
  #gone = new Set<string>();
  #wasOwned = false;

  readonly #api: () => ApiClient;
  readonly #hooks: ThreadListHooks;

  constructor(api: () => ApiClient, hooks: ThreadListHooks) {
    this.#api = api;
    this.#hooks = hooks;
  }

  get snapshot(): ThreadListSnapshot {
    return this.#state;
  }

  /** Shows a cached list (no request); the server's list replaces it on the next refresh. */
  restore(threads: readonly ThreadSummary[], owned: boolean): void {
    this.#wasOwned = owned;
    this.#set({ status: 'idle', threads, nextCursor: null, loadingMore: false });
  }

  /** Another tab's list (it loaded, deleted or renamed): shown as it is, with this list's status and paging. */
  follow(threads: readonly ThreadSummary[], owned: boolean): void {
    this.#wasOwned = owned;
    if (threads !== this.#state.threads) this.#set({ ...this.#state, threads });
  }

  /** Whether the service has ever answered for an owner in this state (remembered with the list). */
  get owned(): boolean {
    return this.#wasOwned;
  }

  get open(): boolean {
    return this.#isOpen;
  }

  /** Shows or hides the list; showing it is the moment it may ask the service. */
  setOpen(open: boolean): void {
    this.#isOpen = open;
    this.#chosen = true;
    const { status } = this.#state;
    if (open && (status === 'idle' || status === 'error')) void this.refresh();
    this.#hooks.onChange(this.#state);
  }

  /** The device remembered the list open or closed: that applies unless the visitor chose since. */
  restoreOpen(open: boolean): void {
    if (!this.#chosen) this.#isOpen = open;
  }

  /** An open list that has nothing loaded asks the service again. */
  refreshIfOpen(): void {
    if (this.#isOpen && this.#state.status === 'idle') void this.refresh();
  }

  /** The next page (`more`), or the list again after an error. */
  load(more: boolean): Promise<void> {
    return more ? this.loadMore() : this.refresh();
  }

  async refresh(): Promise<void> {
    if (this.#noHistory()) return;
    const signal = this.#begin();
    this.#staleLoad = false;
    this.#set({ ...this.#state, status: 'loading', error: undefined });
    try {
      // The session first: a site's anonymous visitor's says `-` (decision 695), and the list
      // request would only be a 403 in the page's console.
      await this.#hooks.session?.();
      if (signal.aborted || this.#noHistory()) return;
      const page = await this.#api().listThreads({ limit: PAGE_SIZE }, { signal });
      this.#wasOwned = true;
      const threads = page.threads.filter((t) => !this.#gone.has(t.id));
      this.#set({ status: 'ready', threads, nextCursor: page.next_cursor, loadingMore: false });
      this.#hooks.onAnswered?.();
      // An answer ended while it loaded: once more, so the new or bumped thread shows.
      if (this.#staleLoad) return this.refresh();
    } catch (error) {
      this.#fail(error, signal);
    }
  }

  /**
   * An anonymous visitor has no list on the service (it would answer 403): shows what there is
   * without a request, and says so. A public visitor's list is the one their device keeps
   * (decision 518).
   */
  #noHistory(): boolean {
    const noHistory = this.#hooks.noHistory?.();
    if (noHistory) {
      this.#request?.abort();
      const threads = noHistory === 'public' ? this.#state.threads : [];
      this.#set({
        status: threads.length ? 'ready' : 'unavailable',
        threads,
        nextCursor: null,
        loadingMore: false,
        noHistory,
      });
    }
    return Boolean(noHistory);
  }

  async loadMore(): Promise<void> {
    const cursor = this.#state.nextCursor;
    if (!cursor || this.#state.loadingMore) return;
    const signal = this.#begin();
    this.#set({ ...this.#state, loadingMore: true });
    try {
      const page = await this.#api().listThreads({ limit: PAGE_SIZE, cursor }, { signal });
      const known = new Set([...this.#state.threads.map((t) => t.id), ...this.#gone]);
      const threads = [...this.#state.threads, ...page.threads.filter((t) => !known.has(t.id))];
      this.#set({ status: 'ready', threads, nextCursor: page.next_cursor, loadingMore: false });
      this.#hooks.onAnswered?.();
    } catch (error) {
      this.#fail(error, signal);
    }
  }

  /**
   * Deletes on the service, then drops the entry; true once dropped. A thread already gone is
   * dropped all the same; any other failure is reported and the entry stays.
   */
  async remove(threadId: string): Promise<boolean> {
    const { signal } = this.#deletions;
    this.#clearRefusal();
    try {
      // A thread kept on the device is forgotten there (the caller's part), never asked of the service.
      if (!this.onDevice) await this.#api().deleteThread(threadId, { signal });
    } catch (error) {
      if (signal.aborted) return false;
      if (!(error instanceof ApiError && error.status === 404)) {
        this.#refused(error);
        return false;
      }
    }
    if (signal.aborted) return false;
    this.drop(threadId);
    return true;
  }

  /**
   * A thread's messages, to resume it; undefined when it cannot be had. One the service no longer
   * knows (404) leaves the list; any failure but an abort is reported.
   */
  async read(threadId: string, signal: AbortSignal): Promise<ThreadDetail | undefined> {
    try {
      return await this.#api().getThread(threadId, { signal });
    } catch (error) {
      if (isAbortError(error) || signal.aborted) return;
      if (error instanceof ApiError && error.status === 404) this.drop(threadId);
      this.#hooks.onError?.(describeError(error));
    }
  }

  /**
   * Renames on the service (§10), then shows the title it stored; the order stays (§10). A
   * failure is reported and the old title stays.
   */
  async rename(threadId: string, title: string): Promise<void> {
    const { signal } = this.#deletions;
    this.#clearRefusal();
    try {
      // A title kept on the device is the visitor's alone (decision 519).
      const renamed = this.onDevice ? { title } : await this.#api().renameThread(threadId, title, { signal });
      if (signal.aborted) return;
      this.#set({
        ...this.#state,
        threads: this.#state.threads.map((t) => (t.id === threadId ? { ...t, title: renamed.title } : t)),
      });
    } catch (error) {
      if (!signal.aborted && !isAbortError(error)) this.#refused(error);
    }
  }

  /**
   * A delete or rename the service refused: the list says why, above its rows as they were (the
   * visitor confirmed and saw nothing happen), and the page hears of it. The next one clears it.
   */
  #refused(error: unknown): void {
    const info = describeError(error);
    if (this.#state.status === 'ready') this.#set({ ...this.#state, error: info });
    this.#hooks.onError?.(info);
  }

  #clearRefusal(): void {
    if (this.#state.status === 'ready' && this.#state.error) this.#set({ ...this.#state, error: undefined });
  }

  /** The service's list has changed (a message created or bumped a thread): reload on next look. */
  markStale(): void {
    if (this.#state.status === 'loading') this.#staleLoad = true;
    else if (this.#state.status === 'ready' || this.#state.status === 'error')
      this.#set({ ...this.#state, status: 'idle' });
  }

  /** The rows a public visitor's device keeps, newest first (see KeptThreads). */
  keep(threads: readonly ThreadSummary[]): void {
    const status = this.#state.status === 'unavailable' && threads.length ? 'ready' : this.#state.status;
    this.#set({ ...this.#state, status, threads });
  }

  /** The list is one a public visitor's device keeps, not the service (decision 518). */
  get onDevice(): boolean {
    return this.#hooks.noHistory?.() === 'public';
  }

  /** Drops an entry deleted, or one the service no longer knows (a 404 on resume), for good. */
  drop(threadId: string): void {
    this.#gone.add(threadId);
    this.#set({ ...this.#state, threads: this.#state.threads.filter((t) => t.id !== threadId) });
  }

  clear(): void {
    this.#request?.abort();
    this.#deletions.abort();
    this.#deletions = new AbortController();
    this.#wasOwned = false;
    this.#gone.clear();
    this.#set({ status: 'idle', threads: [], nextCursor: null, loadingMore: false });
  }

  #begin(): AbortSignal {
    this.#request?.abort();
    this.#request = new AbortController();
    return this.#request.signal;
  }

  #fail(error: unknown, signal: AbortSignal): void {
    if (isAbortError(error) || signal.aborted) return;
    // A 403 means no owner, unless the page's origin was refused (which says nothing of the owner).
    if (error instanceof ApiError && error.status === 403 && error.code !== 'origin_not_allowed') {
      const lost = this.#wasOwned;
      this.#wasOwned = false;
      this.#set({ status: 'unavailable', threads: [], nextCursor: null, loadingMore: false });
      if (lost) this.#hooks.onOwnerLost?.();
      return;
    }
    this.#set({ ...this.#state, status: 'error', loadingMore: false, error: describeError(error) });
  }

  #set(next: ThreadListSnapshot): void {
    this.#state = next;
    this.#hooks.onChange(next);
  }
}
