import { afterEach, beforeEach, describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';
import { createDeviceMemoryStore, type RemoteChange } from '../../../../src/chat/device-memory-store.js';

// The warning is once per page, and the browser files share one page (decision 516): no file
// before this one may make the store warn, and the test here that does comes last.
describe('<agent-chat> without IndexedDB', () => {
  const originalOpen = IDBFactory.prototype.open;
  const originalTransaction = IDBDatabase.prototype.transaction;
  beforeEach(() => {
    // Blocked storage (some private modes, enterprise policies) makes open() throw; a
    // connection opened earlier fails at its next transaction.
    const denied = () => {
      throw new DOMException('The user denied permission to access the database.', 'SecurityError');
    };
    IDBFactory.prototype.open = denied;
    IDBDatabase.prototype.transaction = denied;
  });
  afterEach(() => {
    IDBFactory.prototype.open = originalOpen;
    IDBDatabase.prototype.transaction = originalTransaction;
  });

  test('chats normally and warns once', async ({ backend }) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const el = await fixtureChat();
    await el.send('Does it still work?');
    await el.send('And a second time?');
    await el.clearSession();
    await settled(el);
    await el.send('After a wipe?');
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
    const ours = warn.mock.calls.filter((call) => String(call[0]).startsWith('[agent-chat]'));
    expect(ours).toHaveLength(1);
    expect(String(ours[0][0])).toContain('IndexedDB is unavailable');
    warn.mockRestore();
  });
});

describe('device memory whose database cannot be opened in one tab', () => {
  test('a wipe whose database cannot be opened still lets the tab follow the others after it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const blocked = createDeviceMemoryStore('p:blocked', {
      store: () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
    const heard: RemoteChange[] = [];
    blocked.watch((change) => heard.push(change));
    await blocked.clear();
    await createDeviceMemoryStore('p:blocked').save({
      open: false,
      threadListOpen: false,
      activeThreadId: 'th_1',
      drafts: {},
      outbox: [],
      threads: [],
      messages: [{ id: 'm0', role: 'user', content: 'From another tab', sources: [], status: 'complete' }],
      owned: false,
      ownerKey: '-',
    });
    await expect.poll(() => heard.at(-1)?.state?.messages[0]?.content).toBe('From another tab');
    warn.mockRestore();
  });
});
