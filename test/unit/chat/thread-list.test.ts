import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../src/api/api-client.js';
import { ApiError } from '../../../src/api/errors.js';
import type { ThreadPage, ThreadSummary } from '../../../src/api/types.js';
import { ThreadList } from '../../../src/chat/thread-list.js';

const thread = (id: string): ThreadSummary => ({ id, title: id, created_at: 'c', updated_at: 'u' });

function setup(
  pages: (cursor?: string | null) => Promise<ThreadPage>,
  remove: (id: string) => Promise<void> = async () => {},
) {
  let ownerLost = 0;
  const api = {
    listThreads: ({ cursor }: { cursor?: string | null } = {}) => pages(cursor),
    deleteThread: remove,
  } as unknown as ApiClient;
  const list = new ThreadList(() => api, {
    onChange: () => {},
    onOwnerLost: () => (ownerLost += 1),
  });
  return { list, ownerLost: () => ownerLost };
}

describe('ThreadList', () => {
  it("replaces a restored list with the service's and appends further pages without duplicates", async () => {
    const { list } = setup(async (cursor) =>
      cursor
        ? { threads: [thread('b'), thread('c')], next_cursor: null }
        : { threads: [thread('a'), thread('b')], next_cursor: 'c1' },
    );
    list.restore([thread('cached')], true);
    expect(list.snapshot).toMatchObject({ status: 'idle', threads: [thread('cached')] });
    await list.refresh();
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['a', 'b']);
    await list.loadMore();
    expect(list.snapshot).toMatchObject({ status: 'ready', nextCursor: null });
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['a', 'b', 'c']);
  });

  it('says when the service answered a page: a load or the next page, not a restored list', async () => {
    let answered = 0;
    const api = {
      listThreads: async ({ cursor }: { cursor?: string | null } = {}) =>
        cursor
          ? { threads: [thread('b')], next_cursor: null }
          : { threads: [thread('a')], next_cursor: 'c1' },
    } as unknown as ApiClient;
    const list = new ThreadList(() => api, { onChange: () => {}, onAnswered: () => (answered += 1) });
    list.restore([thread('cached')], true);
    expect(answered).toBe(0);
    await list.refresh();
    expect(answered).toBe(1);
    await list.loadMore();
    expect(answered).toBe(2);
  });

  it('loads again when it went out of date during a load, whose answer may predate the change', async () => {
    let release!: () => void;
    let calls = 0;
    const { list } = setup(async () => {
      calls += 1;
      if (calls === 1) {
        await new Promise<void>((resolve) => (release = resolve));
        return { threads: [], next_cursor: null };
      }
      return { threads: [thread('new')], next_cursor: null };
    });
    const loading = list.refresh();
    // An answer ends (a thread is created) while the first list is on its way.
    await vi.waitFor(() => expect(calls).toBe(1));
    list.markStale();
    release();
    await loading;
    expect(calls).toBe(2);
    expect(list.snapshot).toMatchObject({ status: 'ready', threads: [thread('new')] });
  });

  it("asks the session first: one that names no owner (`-`) leaves the list unasked, the visitor's or a signed-in one's is asked", async () => {
    let calls = 0;
    let sessionKey: string | undefined;
    const api = {
      listThreads: async () => {
        calls += 1;
        return { threads: [thread('a')], next_cursor: null };
      },
    } as unknown as ApiClient;
    const list = new ThreadList(() => api, {
      onChange: () => {},
      // Before a session, the page's word (no owner-key): nothing is known.
      noHistory: () => sessionKey === '-' && 'signed-out',
      session: async () => {
        sessionKey ??= '-';
      },
    });
    await list.refresh();
    expect(calls).toBe(0);
    expect(list.snapshot).toMatchObject({ status: 'unavailable', threads: [], noHistory: 'signed-out' });

    sessionKey = 'key-alice';
    await list.refresh();
    expect(calls).toBe(1);
    expect(list.snapshot).toMatchObject({ status: 'ready', threads: [thread('a')] });
  });

  it('treats a 403 as "no history here", and as an owner change only after an owned answer', async () => {
    const forbidden = async () => {
      throw new ApiError(403, 'session_without_owner', 'x');
    };
    const anonymous = setup(forbidden);
    await anonymous.list.refresh();
    expect(anonymous.list.snapshot.status).toBe('unavailable');
    expect(anonymous.ownerLost()).toBe(0);

    const signedOut = setup(forbidden);
    signedOut.list.restore([thread('a')], true);
    await signedOut.list.refresh();
    expect(signedOut.list.snapshot).toMatchObject({ status: 'unavailable', threads: [] });
    expect(signedOut.ownerLost()).toBe(1);
  });

  it('reads a refused origin (403 origin_not_allowed) as an error to show, never as an owner change', async () => {
    const { list, ownerLost } = setup(async () => {
      throw new ApiError(403, 'origin_not_allowed', 'x');
    });
    list.restore([thread('a')], true);
    await list.refresh();
    expect(list.snapshot).toMatchObject({
      status: 'error',
      threads: [thread('a')],
      error: { code: 'origin_not_allowed', key: 'errorNotAllowedHere', recoverable: false },
    });
    expect(ownerLost()).toBe(0);
  });

  it('keeps the list and reports a readable error when loading fails', async () => {
    const { list } = setup(async () => {
      throw new ApiError(502, 'http_error', 'x');
    });
    list.restore([thread('a')], false);
    await list.refresh();
    expect(list.snapshot).toMatchObject({
      status: 'error',
      threads: [thread('a')],
      error: { recoverable: true },
    });
  });

  it('drops a deleted thread, even when the service already forgot it', async () => {
    const { list } = setup(
      async () => ({ threads: [thread('a'), thread('b')], next_cursor: null }),
      async (id) => {
        if (id === 'b') throw new ApiError(404, 'not_found', 'x');
      },
    );
    await list.refresh();
    await list.remove('a');
    await list.remove('b');
    expect(list.snapshot.threads).toEqual([]);
  });

  it('never brings back a thread deleted while a page asked for before the deletion was on its way', async () => {
    let release!: () => void;
    const { list } = setup(async (cursor) => {
      if (cursor) return { threads: [thread('old'), thread('c')], next_cursor: null };
      // The service answers as it stood when asked: the thread is still there.
      await new Promise<void>((resolve) => (release = resolve));
      return { threads: [thread('old'), thread('b')], next_cursor: 'c1' };
    });
    list.restore([thread('old'), thread('b')], true);
    const loading = list.refresh();
    expect(await list.remove('old')).toBe(true);
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['b']);
    release();
    await loading;
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['b']);
    await list.loadMore();
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['b', 'c']);
  });

  it('reads a thread to resume it; one the service forgot leaves the list, and an abandoned read says nothing', async () => {
    const errors: string[] = [];
    const api = {
      listThreads: async () => ({ threads: [thread('a'), thread('b')], next_cursor: null }),
      getThread: async (id: string, { signal }: { signal?: AbortSignal } = {}) => {
        if (id === 'b') throw new ApiError(404, 'not_found', 'x');
        if (id === 'slow')
          return new Promise((_, reject) =>
            signal?.addEventListener('abort', () => reject(new DOMException('gone', 'AbortError'))),
          );
        return { id, title: id, messages: [] };
      },
    } as unknown as ApiClient;
    const list = new ThreadList(() => api, {
      onChange: () => {},
      onError: (error) => errors.push(error.code),
    });
    await list.refresh();
    expect(await list.read('a', new AbortController().signal)).toMatchObject({ id: 'a', messages: [] });
    expect(await list.read('b', new AbortController().signal)).toBeUndefined();
    expect(list.snapshot.threads.map((t) => t.id)).toEqual(['a']);
    expect(errors).toEqual(['not_found']);
    const abandoned = new AbortController();
    const reading = list.read('slow', abandoned.signal);
    abandoned.abort();
    expect(await reading).toBeUndefined();
    expect(errors).toEqual(['not_found']);
  });

  it('marks a loaded list stale, but never an unavailable one', async () => {
    const { list } = setup(async () => ({ threads: [], next_cursor: null }));
    await list.refresh();
    list.markStale();
    expect(list.snapshot.status).toBe('idle');
    const anonymous = setup(async () => {
      throw new ApiError(403, 'session_without_owner', 'x');
    });
    await anonymous.list.refresh();
    anonymous.list.markStale();
    expect(anonymous.list.snapshot.status).toBe('unavailable');
  });
});
