import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/api-client.js';
import { ApiError } from '../../../src/api/errors.js';
import type { ThreadPage, ThreadSummary } from '../../../src/api/types.js';
import { ThreadDirectory } from '../../../src/chat/thread-directory.js';

const thread = (id: string): ThreadSummary => ({ id, title: id, created_at: 'c', updated_at: 'u' });

function setup(
  list: (cursor?: string | null) => Promise<ThreadPage>,
  remove: (id: string) => Promise<void> = async () => {},
) {
  let ownerLost = 0;
  const api = {
    listThreads: ({ cursor }: { cursor?: string | null } = {}) => list(cursor),
    deleteThread: remove,
  } as unknown as ApiClient;
  const directory = new ThreadDirectory(() => api, {
    onChange: () => {},
    onOwnerLost: () => (ownerLost += 1),
  });
  return { directory, ownerLost: () => ownerLost };
}

describe('ThreadDirectory', () => {
  it("replaces a restored list with the service's and appends further pages without duplicates", async () => {
    const { directory } = setup(async (cursor) =>
      cursor
        ? { threads: [thread('b'), thread('c')], next_cursor: null }
        : { threads: [thread('a'), thread('b')], next_cursor: 'c1' },
    );
    directory.restore([thread('cached')], true);
    expect(directory.snapshot).toMatchObject({ status: 'idle', threads: [thread('cached')] });
    await directory.refresh();
    expect(directory.snapshot.threads.map((t) => t.id)).toEqual(['a', 'b']);
    await directory.loadMore();
    expect(directory.snapshot).toMatchObject({ status: 'ready', nextCursor: null });
    expect(directory.snapshot.threads.map((t) => t.id)).toEqual(['a', 'b', 'c']);
  });

  it('treats a 403 as "no history here", and as an owner change only after an owned answer', async () => {
    const forbidden = async () => {
      throw new ApiError(403, 'session_without_owner', 'x');
    };
    const anonymous = setup(forbidden);
    await anonymous.directory.refresh();
    expect(anonymous.directory.snapshot.status).toBe('unavailable');
    expect(anonymous.ownerLost()).toBe(0);

    const signedOut = setup(forbidden);
    signedOut.directory.restore([thread('a')], true);
    await signedOut.directory.refresh();
    expect(signedOut.directory.snapshot).toMatchObject({ status: 'unavailable', threads: [] });
    expect(signedOut.ownerLost()).toBe(1);
  });

  it('reads a refused origin (403 origin_not_allowed) as an error to show, never as an owner change', async () => {
    const { directory, ownerLost } = setup(async () => {
      throw new ApiError(403, 'origin_not_allowed', 'x');
    });
    directory.restore([thread('a')], true);
    await directory.refresh();
    expect(directory.snapshot).toMatchObject({
      status: 'error',
      threads: [thread('a')],
      error: { code: 'origin_not_allowed', key: 'errorNotConfigured', recoverable: false },
    });
    expect(ownerLost()).toBe(0);
  });

  it('keeps the list and reports a readable error when loading fails', async () => {
    const { directory } = setup(async () => {
      throw new ApiError(502, 'http_error', 'x');
    });
    directory.restore([thread('a')], false);
    await directory.refresh();
    expect(directory.snapshot).toMatchObject({
      status: 'error',
      threads: [thread('a')],
      error: { recoverable: true },
    });
  });

  it('drops a deleted thread, even when the service already forgot it', async () => {
    const { directory } = setup(
      async () => ({ threads: [thread('a'), thread('b')], next_cursor: null }),
      async (id) => {
        if (id === 'b') throw new ApiError(404, 'not_found', 'x');
      },
    );
    await directory.refresh();
    await directory.remove('a');
    await directory.remove('b');
    expect(directory.snapshot.threads).toEqual([]);
  });

  it('marks a loaded list stale, but never an unavailable one', async () => {
    const { directory } = setup(async () => ({ threads: [], next_cursor: null }));
    await directory.refresh();
    directory.markStale();
    expect(directory.snapshot.status).toBe('idle');
    const anonymous = setup(async () => {
      throw new ApiError(403, 'session_without_owner', 'x');
    });
    await anonymous.directory.refresh();
    anonymous.directory.markStale();
    expect(anonymous.directory.snapshot.status).toBe('unavailable');
  });
});
