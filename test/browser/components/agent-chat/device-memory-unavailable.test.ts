import { afterEach, beforeEach, describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';

// In its own file: the warning is once per page, and each test file gets a fresh page.
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
