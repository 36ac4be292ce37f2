import { describe, expect, it, vi } from 'vitest';
import {
  DeviceMemory,
  UNNAMED_OWNER,
  sharedOnDevice,
  type DeviceMemoryOptions,
  type LiveState,
  type Remembered,
} from '../../../src/chat/device-memory.js';
import type { ChatMessage } from '../../../src/chat/types.js';
import type { RemoteChange, StoredMemory, DeviceMemoryStore } from '../../../src/chat/device-memory-store.js';

const message = (id: string, content: string): ChatMessage => ({
  id,
  role: 'user',
  content,
  sources: [],
  status: 'sent',
});

function stored(ownerKey: string | null, extra: Partial<StoredMemory> = {}): StoredMemory {
  return {
    open: true,
    threadListOpen: false,
    activeThreadId: 'th_1',
    drafts: { th_1: 'half a sentence' },
    outbox: [{ id: 'q1', text: 'and then?' }],
    threads: [],
    messages: [message('m1', 'A question')],
    owned: false,
    ownerKey,
    ...extra,
  };
}

function harness(initial: StoredMemory | undefined, key?: string) {
  let listener: ((change: RemoteChange) => void) | undefined;
  const saves: StoredMemory[] = [];
  const store: DeviceMemoryStore = {
    load: async () => initial,
    save: async (state) => void saves.push(state),
    clear: vi.fn(async () => {}),
    watch: (l) => ((listener = l), () => (listener = undefined)),
    stash: vi.fn(),
    keptThread: async () => undefined,
  };
  const shown: Array<{ remembered: Remembered; how: string }> = [];
  const events: string[] = [];
  let current = key;
  const live: LiveState = {
    drafts: {},
    outbox: [],
    threadListOpen: false,
    activeThreadId: null,
    messages: [],
    threads: [],
    owned: false,
  };
  const options: DeviceMemoryOptions = {
    openStore: () => store,
    currentKey: () => current,
    collect: () => live,
    restorePanel: ({ open }) => events.push(`panel:${open}`),
    restoreConversations: (remembered, how) => shown.push({ remembered, how }),
    confirmOwner: () => events.push('confirm'),
    wipedElsewhere: () => events.push('wiped'),
    saveDelayMs: 0,
  };
  const memory = new DeviceMemory(options);
  memory.open('p:i');
  return {
    memory,
    store,
    saves,
    shown,
    events,
    remote: (change: RemoteChange) => listener!(change),
    setKey: (k: string) => (current = k),
    live,
  };
}

const titled = (title: string) => [
  { id: 'th_1', title, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
];

/**
 * A tab whose list shows `threads` (the service's, `owned`), with a save that waits a minute:
 * what another tab writes meanwhile finds this tab's changes not written yet. Follows as the
 * session does: what is shown becomes the live state.
 */
function listTab(threads: ReturnType<typeof titled>, owned: boolean) {
  let listener: ((change: RemoteChange) => void) | undefined;
  const saves: StoredMemory[] = [];
  const live = {
    drafts: {},
    outbox: [],
    threadListOpen: true,
    activeThreadId: null,
    messages: [],
    threads,
    owned,
  };
  const shown: Remembered[] = [];
  const memory = new DeviceMemory({
    openStore: () => ({
      load: async () => undefined,
      save: async (state) => void saves.push(state),
      clear: async () => {},
      watch: (l) => ((listener = l), () => {}),
      stash: () => {},
      keptThread: async () => undefined,
    }),
    currentKey: () => 'key-alice',
    collect: () => live,
    restorePanel: () => {},
    restoreConversations: (remembered) => {
      shown.push(remembered);
      Object.assign(live, { threads: remembered.threads, drafts: remembered.drafts });
    },
    confirmOwner: () => {},
    wipedElsewhere: () => {},
    saveDelayMs: 60_000,
  });
  memory.open('p:i');
  return { memory, live, saves, shown, remote: (change: RemoteChange) => listener!(change) };
}

describe('DeviceMemory at pagehide (decision 443)', () => {
  it('stashes the drafts, the outbox and the conversation at once, with their owner, then writes the device as ever', async () => {
    const { memory, store, saves, live } = harness(undefined, 'key-alice');
    await memory.hydrated;
    live.drafts = { '': 'typed just now' };
    live.outbox = [{ id: 'q2', text: 'and then?' }];
    live.activeThreadId = 'th_1';
    live.messages = [{ ...message('m1', 'Sent just now'), status: 'sending' }];
    memory.leave();
    // The store keeps of the conversation what a navigation may cut off (decision 451).
    expect(store.stash).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({
        drafts: { '': 'typed just now' },
        ownerKey: 'key-alice',
        outbox: live.outbox,
        activeThreadId: 'th_1',
        messages: live.messages,
      }),
    );
    await vi.waitFor(() => expect(saves.at(-1)?.drafts).toEqual({ '': 'typed just now' }));
  });

  it("stashes a record that waits for its owner as that owner's, never the defaults on screen", async () => {
    const { memory, store, shown } = harness(stored('key-alice'));
    await memory.hydrated;
    memory.leave();
    expect(shown).toEqual([]);
    expect(store.stash).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ drafts: { th_1: 'half a sentence' }, ownerKey: 'key-alice' }),
    );
  });

  it('stashes nothing before the device is read: a stash not taken back yet is not overwritten', () => {
    const { memory, store } = harness(stored(null));
    memory.leave();
    expect(store.stash).not.toHaveBeenCalled();
  });

  it.each([
    ['sign-out', { broadcast: true, unbind: true }],
    ['another tab', { broadcast: false, unbind: true }],
    ['owner change', { broadcast: true, unbind: false }],
  ])('forgets the stash at a wipe (%s)', async (_reason, how) => {
    const { memory, store } = harness(undefined, 'key-alice');
    await memory.hydrated;
    await memory.wipe(how);
    expect(store.stash).toHaveBeenCalledExactlyOnceWith();
  });
});

describe('DeviceMemory owner binding', () => {
  it.each([['-'], [UNNAMED_OWNER], [null]])(
    'shows what %j left at once: conversation, draft and queue, with no session asked for',
    async (owner) => {
      const { memory, shown, events } = harness(stored(owner));
      await memory.hydrated;
      expect(sharedOnDevice(owner)).toBe(true);
      expect(shown.map((s) => s.how)).toEqual(['restore']);
      expect(shown[0].remembered.drafts).toEqual({ th_1: 'half a sentence' });
      expect(shown[0].remembered.outbox).toEqual([{ id: 'q1', text: 'and then?' }]);
      expect(events).toEqual(['panel:true']);
    },
  );

  it("keeps a named owner's record unshown and unwritten until a session confirms that owner", async () => {
    const { memory, shown, events, saves } = harness(stored('key-alice'));
    await memory.hydrated;
    expect(events).toEqual(['panel:true', 'confirm']);
    expect(shown).toEqual([]);
    await memory.flush();
    expect(saves).toEqual([]);
    expect(memory.bind('key-alice')).toBe('kept');
    expect(shown.map((s) => s.remembered.messages[0].content)).toEqual(['A question']);
  });

  it("asks for no confirmation of a named owner's record read after the memory was closed (the widget left the page)", async () => {
    const { memory, events } = harness(stored('key-alice'));
    memory.close();
    await memory.hydrated;
    expect(events).not.toContain('confirm');
  });

  it("wipes a named owner's record, drafts and queue included, when the session names someone else", async () => {
    const { memory, shown, store } = harness(stored('key-alice'));
    await memory.hydrated;
    expect(memory.bind('key-bob')).toBe('kept');
    expect(shown).toEqual([]);
    expect(store.clear).toHaveBeenCalledTimes(1);
  });

  it("with the page's key known at load, shows only a record of that key", async () => {
    const mine = harness(stored('key-alice'), 'key-alice');
    await mine.memory.hydrated;
    expect(mine.shown).toHaveLength(1);
    const other = harness(stored('-'), 'key-bob');
    await other.memory.hydrated;
    expect(other.shown).toEqual([]);
    expect(other.store.clear).toHaveBeenCalledTimes(1);
  });

  it('adopts the first key for what was held with none; a shared key that turns into another is an owner change', async () => {
    const unknown = harness(stored(null));
    await unknown.memory.hydrated;
    expect(unknown.memory.bind('key-alice')).toBe('kept');
    const anonymous = harness(stored('-'));
    await anonymous.memory.hydrated;
    expect(anonymous.memory.provisional).toBe(true);
    expect(anonymous.memory.bind('key-alice')).toBe('changed');
    expect(anonymous.memory.provisional).toBe(false);
  });

  it("a public visitor's record stored under '' (before the widget read the session's `-`) stays theirs when `-` comes", async () => {
    const visitor = harness(stored(UNNAMED_OWNER));
    await visitor.memory.hydrated;
    expect(visitor.shown.map((s) => s.how)).toEqual(['restore']);
    expect(visitor.memory.bind('-')).toBe('kept');
    expect(visitor.store.clear).not.toHaveBeenCalled();
    // And the other way round, a page whose owner-key says `-` before its session says nothing.
    const page = harness(stored('-'));
    await page.memory.hydrated;
    expect(page.memory.bind(UNNAMED_OWNER)).toBe('kept');
  });

  it('follows another tab of the same owner, confirms first for a named owner it does not know yet, and follows wipes', async () => {
    const same = harness(undefined, 'key-alice');
    await same.memory.hydrated;
    same.remote({ state: stored('key-alice') });
    await vi.waitFor(() => expect(same.shown.map((s) => s.how)).toEqual(['follow']));
    // Another owner's tab (the page there names Bob): not followed.
    same.remote({ state: stored('key-bob') });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(same.shown).toHaveLength(1);

    const stranger = harness(undefined);
    await stranger.memory.hydrated;
    stranger.remote({ state: stored('key-carol') });
    await vi.waitFor(() => expect(stranger.events).toContain('confirm'));
    expect(stranger.shown).toEqual([]);
    expect(stranger.memory.bind('key-carol')).toBe('kept');
    expect(stranger.shown.map((s) => s.how)).toEqual(['restore']);

    const tab = harness(stored('-'));
    await tab.memory.hydrated;
    tab.remote({});
    await vi.waitFor(() => expect(tab.events).toContain('wiped'));
  });

  it("keeps a change of its own not written yet (a rename) when another tab's older write arrives, and writes it after", async () => {
    const { memory, live, saves, shown, remote } = listTab(titled('Billing question'), true);
    await memory.hydrated;
    await memory.flush();
    live.threads = titled('Invoices');
    memory.changed();
    // The other tab wrote its list, as it loaded it before the rename, and a draft; then once
    // more before this tab's own write lands. Both arrive together: a write is due within
    // MAX_SAVE_WAIT_MS, and after it the rename is on the device, not unsaved.
    const olderList = (draft: string) =>
      stored('key-alice', {
        activeThreadId: null,
        messages: [],
        outbox: [],
        threads: titled('Billing question'),
        owned: true,
        drafts: { '': draft },
      });
    remote({ state: olderList('hello') });
    remote({ state: olderList('hello!') });
    await vi.waitFor(() => expect(shown).toHaveLength(2));
    expect(shown.map((s) => s.threads.map((t) => t.title))).toEqual([['Invoices'], ['Invoices']]);
    expect(shown.map((s) => s.drafts)).toEqual([{ '': 'hello' }, { '': 'hello!' }]);
    await memory.flush();
    expect(saves.at(-1)?.threads.map((t) => t.title)).toEqual(['Invoices']);
  });

  it("takes another tab's later list over one the service answered here that is not written yet", async () => {
    const { memory, live, saves, shown, remote } = listTab([], false);
    await memory.hydrated;
    await memory.flush();
    // This tab's list answered by the service, its write still to come; the other tab renamed
    // the row since, and its write arrives first.
    Object.assign(live, { threads: titled('Billing question'), owned: true });
    memory.changed();
    memory.listAnswered();
    remote({
      state: stored('key-alice', {
        activeThreadId: null,
        messages: [],
        outbox: [],
        drafts: {},
        threads: titled('Invoices'),
        owned: true,
      }),
    });
    await vi.waitFor(() => expect(shown).toHaveLength(1));
    expect(shown[0].threads.map((t) => t.title)).toEqual(['Invoices']);
    await memory.flush();
    expect(saves.at(-1)?.threads.map((t) => t.title)).toEqual(['Invoices']);
  });
});
