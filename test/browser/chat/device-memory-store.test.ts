import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStore, keys, type UseStore } from 'idb-keyval';
import type { ThreadSummary } from '../../../src/api/types.js';
import {
  CHUNK_SIZE,
  MAX_STASH_CHARS,
  clearDeviceMemory,
  createDeviceMemoryStore,
  type RemoteChange,
  type StoredMemory,
} from '../../../src/chat/device-memory-store.js';
import type { ChatMessage } from '../../../src/chat/types.js';
import { CLAIM_MS } from '../../../src/chat/outbox.js';

const message = (i: number, content = `message ${i}`): ChatMessage => ({
  id: `m${i}`,
  role: i % 2 ? 'assistant' : 'user',
  content,
  sources: [],
  status: 'complete',
});

function state(messages: ChatMessage[], extra: Partial<StoredMemory> = {}): StoredMemory {
  return {
    open: true,
    threadListOpen: false,
    activeThreadId: 'th_1',
    drafts: {},
    outbox: [],
    threads: [],
    messages,
    owned: false,
    ownerKey: '-',
    ...extra,
  };
}

/** The widget's database, with every record written counted, and its bytes (as JSON). */
function countingStore() {
  const real = createStore('agent-chat', 'ui-state');
  const puts: string[] = [];
  const written = { bytes: 0 };
  const store: UseStore = (mode, callback) =>
    real(mode, (os) =>
      callback(
        new Proxy(os, {
          get(target, name) {
            if (name === 'put')
              return (value: unknown, key: IDBValidKey) => (
                puts.push(typeof key === 'string' ? key : JSON.stringify(key)),
                (written.bytes += JSON.stringify(value).length),
                target.put(value, key)
              );
            const member = Reflect.get(target, name);
            return typeof member === 'function' ? member.bind(target) : member;
          },
        }),
      ),
    );
  return { store: () => store, puts, written };
}

describe('createDeviceMemoryStore', () => {
  it('writes one more answer in a 1,000-message thread as one chunk and the head, not the thread', async () => {
    const { store, puts } = countingStore();
    const ui = createDeviceMemoryStore('p:chunks', { store });
    const messages = Array.from({ length: 1000 }, (_, i) => message(i));
    await ui.save(state(messages));
    expect(puts.filter((k) => k.includes(':m:'))).toHaveLength(Math.ceil(1000 / CHUNK_SIZE));
    puts.length = 0;
    const more = [...messages, message(1000, 'one more answer')];
    await ui.save(state(more));
    expect(puts.filter((k) => k.includes(':m:'))).toHaveLength(1);
    // The streaming answer grows: only its chunk again.
    puts.length = 0;
    const longer = message(1000, 'one more answer, longer');
    await ui.save(state([...messages, longer]));
    expect(puts.filter((k) => k.includes(':m:'))).toHaveLength(1);
    // Nothing changed (the same message objects): nothing written.
    puts.length = 0;
    await ui.save(state([...messages, longer]));
    expect(puts).toEqual([]);
    // Read back whole, in order, by another reader (a reload).
    const read = await createDeviceMemoryStore('p:chunks').load();
    expect(read?.messages).toHaveLength(1001);
    expect(read?.messages.at(-1)?.content).toBe('one more answer, longer');
    expect(read?.messages.map((m) => m.id)).toEqual([...messages.map((m) => m.id), 'm1000']);
  });

  it('tells another tab what changed, which assembles the same messages and keeps unchanged ones as they were', async () => {
    const writer = createDeviceMemoryStore('p:tabs');
    const reader = createDeviceMemoryStore('p:tabs');
    const changes: RemoteChange[] = [];
    reader.watch((change) => changes.push(change));
    const messages = Array.from({ length: 70 }, (_, i) => message(i));
    await writer.save(state(messages));
    await expect.poll(() => changes.length).toBe(1);
    const first = changes[0].state!.messages;
    expect(first.map((m) => m.content)).toEqual(messages.map((m) => m.content));
    await writer.save(state([...messages, { ...message(70), status: 'streaming' }]));
    await expect.poll(() => changes.length).toBe(2);
    const second = changes[1].state!.messages;
    expect(second.at(-1)?.status).toBe('streaming'); // live: not "interrupted" as after a reload
    expect(second[0]).toBe(first[0]); // an unchanged chunk keeps its objects: views skip them
    await writer.clear();
    await expect.poll(() => changes.length).toBe(3);
    expect(changes[2].state).toBeUndefined();
    expect(await reader.load()).toBeUndefined();
  });

  it("a tab that has not heard of an owner change never writes its owner's state over the next owner's (decision 580)", async () => {
    const alice = [message(0, 'Alice question'), message(1, 'answer')];
    const first = createDeviceMemoryStore('p:owners');
    const second = createDeviceMemoryStore('p:owners');
    const heard: RemoteChange[] = [];
    second.watch((change) => heard.push(change));
    await first.save(state(alice, { ownerKey: 'key-alice' }));
    await expect.poll(() => heard.length).toBe(1);
    // Bob signs in in the first tab: it wipes the device and writes his question.
    await first.clear();
    const bob = [message(2, 'Bob question')];
    await first.save(state(bob, { ownerKey: 'key-bob' }));
    // The second tab, still showing Alice's conversation, writes a change of hers.
    await second.save(state(alice, { ownerKey: 'key-alice', drafts: { new: 'typed' } }));
    const device = await createDeviceMemoryStore('p:owners').load();
    expect(device).toMatchObject({
      ownerKey: 'key-bob',
      drafts: {},
      messages: [{ content: 'Bob question' }],
    });
    // It follows Bob's record as the other tab wrote it (its own session decides whether to show it).
    await expect.poll(() => heard.at(-1)?.state?.ownerKey).toBe('key-bob');
    // Once it has heard and its owner is Bob too, its writes land as before.
    await second.save(state(bob, { ownerKey: 'key-bob', drafts: { new: 'typed' } }));
    expect(await createDeviceMemoryStore('p:owners').load()).toMatchObject({
      ownerKey: 'key-bob',
      drafts: { new: 'typed' },
    });
  });

  it('a tab that has not heard of a wipe never writes its owner back onto the emptied device (decision 623)', async () => {
    const alice = [message(0, 'Alice question'), message(1, 'answer')];
    const first = createDeviceMemoryStore('p:wiped');
    const second = createDeviceMemoryStore('p:wiped');
    const heard: RemoteChange[] = [];
    second.watch((change) => heard.push(change));
    await first.save(state(alice, { ownerKey: 'key-alice' }));
    await expect.poll(() => heard.length).toBe(1);
    // Bob signs in in the first tab: it wipes the device, before his first question. The second
    // tab, still showing Alice's conversation (it has not heard yet), writes a change of hers.
    await Promise.all([
      first.clear(),
      second.save(state(alice, { ownerKey: 'key-alice', drafts: { new: 'typed' } })),
    ]);
    // Nothing of Alice's on the device (a reload in this page would still find its panel state).
    expect(await createDeviceMemoryStore('p:wiped').load()).toMatchObject({
      ownerKey: null,
      drafts: {},
      messages: [],
    });
    // It hears of the wipe as ever; then Bob's question is the device's, and the tabs follow it.
    await expect.poll(() => heard.some((change) => !change.state)).toBe(true);
    const bob = [message(2, 'Bob question')];
    await first.save(state(bob, { ownerKey: 'key-bob' }));
    await expect.poll(() => heard.at(-1)?.state?.ownerKey).toBe('key-bob');
    await second.save(state(bob, { ownerKey: 'key-bob', drafts: { new: 'typed' } }));
    expect(await createDeviceMemoryStore('p:wiped').load()).toMatchObject({
      ownerKey: 'key-bob',
      drafts: { new: 'typed' },
      messages: [{ content: 'Bob question' }],
    });
  });

  it("a tab's own wipe, asked for while its write waits, does not refuse the next owner's first write", async () => {
    const tab = createDeviceMemoryStore('p:own-wipe');
    const other = createDeviceMemoryStore('p:own-wipe');
    const heard: RemoteChange[] = [];
    other.watch((change) => heard.push(change));
    // Alice's answer is being written when Bob signs in: the wipe is asked for before it lands.
    const written = tab.save(state([message(0, 'Alice question')], { ownerKey: 'key-alice' }));
    await Promise.all([written, tab.clear()]);
    await tab.save(state([message(2, 'Bob question')], { ownerKey: 'key-bob' }));
    expect(await createDeviceMemoryStore('p:own-wipe').load()).toMatchObject({
      ownerKey: 'key-bob',
      messages: [{ content: 'Bob question' }],
    });
    // The other tab heard Alice's head, the wipe, then Bob's question: it can follow him.
    await expect.poll(() => heard.at(-1)?.state?.ownerKey).toBe('key-bob');
    expect(heard.map((change) => change.state?.ownerKey ?? 'wiped')).toEqual([
      'key-alice',
      'wiped',
      'key-bob',
    ]);
  });

  it("another tab's write that lands just before this tab's wipe is not followed after it, nor held against the next owner", async () => {
    const tab = createDeviceMemoryStore('p:late');
    const other = createDeviceMemoryStore('p:late');
    const heard: RemoteChange[] = [];
    tab.watch((change) => heard.push(change));
    const alice = [message(0, 'Alice question'), message(1, 'answer')];
    await other.save(state(alice, { ownerKey: 'key-alice' }));
    await expect.poll(() => heard.length).toBe(1);
    // The other tab writes a change of Alice's; its message reaches this tab after Bob signed in
    // here and the wipe began.
    await Promise.all([
      other.save(state(alice, { ownerKey: 'key-alice', drafts: { th_1: 'more' } })),
      tab.clear(),
    ]);
    await tab.save(state([message(2, 'Bob question')], { ownerKey: 'key-bob' }));
    expect(await createDeviceMemoryStore('p:late').load()).toMatchObject({
      ownerKey: 'key-bob',
      messages: [{ content: 'Bob question' }],
    });
    // Alice's late change never reached the listener: it would show her again after the wipe.
    expect(heard).toHaveLength(1);
  });

  it("keeps the panel's state in the tab, not the database: a reload opens it as left, a new tab closed (decision 564)", async () => {
    const { store, puts } = countingStore();
    const tab = createDeviceMemoryStore('p:panel', { store });
    const messages = [message(0)];
    await tab.save(state(messages));
    puts.length = 0;
    await tab.save(state(messages, { open: false, threadListOpen: true }));
    // Only the panel changed: no write to the database, which every tab reads.
    expect(puts).toEqual([]);
    expect(await stored('p:panel')).not.toContain('p:panel:ui:panel');
    // A reload of the tab.
    expect(await createDeviceMemoryStore('p:panel').load()).toMatchObject({
      open: false,
      threadListOpen: true,
      messages: [{ content: 'message 0' }],
    });
    // A new tab: the conversation, with the panel closed.
    sessionStorage.clear();
    expect(await createDeviceMemoryStore('p:panel').load()).toMatchObject({
      open: false,
      threadListOpen: false,
      messages: [{ content: 'message 0' }],
    });
  });

  it('reads a head and its chunks as one: another tab replacing the chunks meanwhile never makes the conversation read empty', async () => {
    const writer = createDeviceMemoryStore('p:whole');
    await writer.save(state([message(0), message(1, 'answer 0')]));
    const lengths: number[] = [];
    for (let i = 1; i <= 40; i += 1) {
      // A tab opening (a reload) while another writes the answer as it grows.
      const read = createDeviceMemoryStore('p:whole').load(true);
      const written = writer.save(state([message(0), message(1, `answer ${i}`)]));
      lengths.push((await read)?.messages.length ?? 0);
      await written;
    }
    expect(lengths).toEqual(Array.from({ length: 40 }, () => 2));
  });

  it('a tab that writes its list keeps the answer another tab wrote meanwhile, though it had not seen it yet', async () => {
    const streaming = createDeviceMemoryStore('p:stale');
    // This tab has not followed the other's writes yet: their message is still on the way.
    const late = createDeviceMemoryStore('p:stale');
    const question = [message(0)];
    const answered = [message(0), message(1, 'the answer, complete')];
    const list = [
      {
        id: 'th_1',
        title: 'A question',
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
      },
    ];
    await streaming.save(state(question));
    await late.save(state(question));
    await streaming.save(state(answered));
    await late.save(state(question, { threads: list, owned: true }));
    const stored = await createDeviceMemoryStore('p:stale').load(true);
    expect(stored?.messages.map((m) => m.content)).toEqual(['message 0', 'the answer, complete']);
    expect(stored?.threads.map((t) => t.title)).toEqual(['A question']);
    // The other tab is told the same: the device's head, with this tab's list.
    const watcher = createDeviceMemoryStore('p:stale');
    const changes: RemoteChange[] = [];
    watcher.watch((change) => changes.push(change));
    await late.save(state(question, { threads: list, owned: true, drafts: { th_1: 'and' } }));
    await expect.poll(() => changes.length).toBe(1);
    expect(changes[0].state?.messages).toHaveLength(2);
    expect(changes[0].state?.drafts).toEqual({ th_1: 'and' });
  });

  it('reads an answer that was streaming when the page went away as interrupted, and a question being sent as failed', async () => {
    const ui = createDeviceMemoryStore('p:cut');
    await ui.save(
      state([
        { ...message(0), status: 'sending' },
        { ...message(1), status: 'streaming', questionAnswerId: 'qa_1' },
      ]),
    );
    const read = await createDeviceMemoryStore('p:cut').load();
    expect(read?.messages.map((m) => m.status)).toEqual(['failed', 'interrupted']);
    expect((await createDeviceMemoryStore('p:cut').load(true))?.messages.map((m) => m.status)).toEqual([
      'sending',
      'streaming',
    ]);
  });
});

/** What a tab stashes when it holds drafts only. */
const drafts = (texts: Record<string, string>, ownerKey: string | null) => ({
  drafts: texts,
  ownerKey,
  activeThreadId: null,
  outbox: [],
  messages: [],
});

/** The widget's keys in this tab's sessionStorage. */
const stashes = () => Object.keys(sessionStorage).filter((key) => key.startsWith('agent-chat:'));

describe('a claim on a queued question, where there are no Web Locks (decision 660)', () => {
  it('goes to one tab of many claiming at once, holds against the others until it lapses, and not against its own tab', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const tabs = ['a', 'b', 'c'].map(() => createDeviceMemoryStore('claims'));
      const won = await Promise.all(tabs.map((tab) => tab.claim!('q1')));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = won.indexOf(true);
      const other = (winner + 1) % 3;
      // Its own tab claims it again (a send taken back offline goes again); another question is free.
      expect(await tabs[winner].claim!('q1')).toBe(true);
      expect(await tabs[other].claim!('q2')).toBe(true);
      vi.setSystemTime(Date.now() + CLAIM_MS - 100);
      expect(await tabs[other].claim!('q1')).toBe(false);
      // The tab that claimed it went away: once its claim lapsed, another takes it.
      vi.setSystemTime(Date.now() + CLAIM_MS + 100);
      expect(await tabs[other].claim!('q1')).toBe(true);
      expect(await tabs[winner].claim!('q1')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds for the same tab after a reload (its pagehide stash names it), not for a tab opened meanwhile', async () => {
    const tab = createDeviceMemoryStore('claims:reload');
    await tab.load();
    expect(await tab.claim!('q1')).toBe(true);
    // The reload: the page stashes at pagehide, and the next load's store is this tab's.
    tab.stash(drafts({}, null));
    const reloaded = createDeviceMemoryStore('claims:reload');
    const opened = createDeviceMemoryStore('claims:reload');
    await Promise.all([reloaded.load(), opened.load()]);
    expect(await opened.claim!('q1')).toBe(false);
    expect(await reloaded.claim!('q1')).toBe(true);
    // A tab duplicated after that, which copies this tab's sessionStorage, is another tab.
    const duplicated = createDeviceMemoryStore('claims:reload');
    expect(await duplicated.claim!('q1')).toBe(false);
  });
});

describe('the stash: drafts kept at pagehide in sessionStorage (decision 443)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('comes back on the next load over the drafts written before it, once', async () => {
    const tab = createDeviceMemoryStore('p:stash');
    await tab.save(state([message(0)], { drafts: { th_1: 'How do I th' }, ownerKey: 'key-alice' }));
    tab.stash(drafts({ th_1: 'How do I theme it?', '': 'new one' }, 'key-alice'));
    const read = await createDeviceMemoryStore('p:stash').load();
    expect(read?.drafts).toEqual({ th_1: 'How do I theme it?', '': 'new one' });
    expect(read?.ownerKey).toBe('key-alice');
    expect(read?.messages.map((m) => m.content)).toEqual(['message 0']);
    expect(stashes()).toEqual([]);
    expect((await createDeviceMemoryStore('p:stash').load())?.drafts).toEqual({ th_1: 'How do I th' });
  });

  it('gives way to drafts written after it (another tab, after this one went away)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000);
    createDeviceMemoryStore('p:later').stash(drafts({ th_1: 'stale' }, 'key-alice'));
    vi.setSystemTime(2_000);
    await createDeviceMemoryStore('p:later').save(
      state([], { drafts: { th_1: 'typed in the other tab' }, ownerKey: 'key-alice' }),
    );
    const read = await createDeviceMemoryStore('p:later').load();
    expect(read?.drafts).toEqual({ th_1: 'typed in the other tab' });
  });

  it("never joins another owner's record, and is gone after the load all the same", async () => {
    await createDeviceMemoryStore('p:owners').save(
      state([message(0)], { drafts: { th_1: "Bob's" }, ownerKey: 'key-bob' }),
    );
    createDeviceMemoryStore('p:owners').stash(drafts({ th_1: "Alice's secret" }, 'key-alice'));
    const read = await createDeviceMemoryStore('p:owners').load();
    expect(read).toMatchObject({ ownerKey: 'key-bob', drafts: { th_1: "Bob's" } });
    expect(stashes()).toEqual([]);
  });

  it("comes back as its owner's record where the device holds nothing of an owner's, or a record no key claimed yet", async () => {
    createDeviceMemoryStore('p:empty').stash(drafts({ '': 'first words' }, 'key-alice'));
    expect(await createDeviceMemoryStore('p:empty').load()).toMatchObject({
      open: false,
      ownerKey: 'key-alice',
      drafts: { '': 'first words' },
      messages: [],
    });
    // A record written before any session was known: the tab that left the stash had adopted it.
    await createDeviceMemoryStore('p:unclaimed').save(
      state([message(0)], { drafts: { th_1: 'Wh' }, ownerKey: null }),
    );
    createDeviceMemoryStore('p:unclaimed').stash(drafts({}, 'key-alice'));
    expect(await createDeviceMemoryStore('p:unclaimed').load()).toMatchObject({
      ownerKey: 'key-alice',
      drafts: {},
      messages: [{ content: 'message 0' }],
    });
  });

  it('belongs to its scope: another widget or project on the page never reads it', async () => {
    createDeviceMemoryStore('proj_a:int_a').stash(drafts({ '': 'for project A' }, null));
    expect(await createDeviceMemoryStore('proj_b:int_b').load()).toBeUndefined();
    expect(await createDeviceMemoryStore('proj_a:int_a:second').load()).toBeUndefined();
    expect((await createDeviceMemoryStore('proj_a:int_a').load())?.drafts).toEqual({ '': 'for project A' });
  });

  it(`holds drafts, the outbox and the last question within ${MAX_STASH_CHARS} characters: past that the drafts alone, then none`, () => {
    const tab = createDeviceMemoryStore('p:bound');
    const sent = { ...drafts({ '': 'short' }, null), outbox: [{ id: 'q1', text: 'and then?' }] };
    tab.stash(sent);
    expect(JSON.parse(sessionStorage.getItem('agent-chat:p:bound')!)).toEqual({
      o: null,
      d: { '': 'short' },
      t: expect.any(Number),
      b: [{ id: 'q1', text: 'and then?' }],
      h: null,
      m: [],
    });
    tab.stash({ ...sent, outbox: [{ id: 'q1', text: 'x'.repeat(MAX_STASH_CHARS) }] });
    expect(sessionStorage.getItem('agent-chat:p:bound')).toMatch(/^\{"o":null,"d":\{"":"short"\},"t":\d+\}$/);
    tab.stash(drafts({ '': 'x'.repeat(MAX_STASH_CHARS) }, null));
    expect(stashes()).toEqual([]);
  });

  it('throws nothing where sessionStorage throws (a full quota, a sandboxed frame): the device reads as before', async () => {
    await createDeviceMemoryStore('p:blocked').save(state([], { drafts: { '': 'on the device' } }));
    const full = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    createDeviceMemoryStore('p:blocked').stash(drafts({ '': 'more' }, '-'));
    expect(full).toHaveBeenCalled();
    vi.spyOn(window, 'sessionStorage', 'get').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    createDeviceMemoryStore('p:blocked').stash(drafts({ '': 'more' }, '-'));
    expect((await createDeviceMemoryStore('p:blocked').load())?.drafts).toEqual({ '': 'on the device' });
  });

  it('a corrupt stash is ignored', async () => {
    for (const raw of ['{', 'null', '7', '{"o":1,"d":[5],"t":"soon"}']) {
      sessionStorage.setItem('agent-chat:p:corrupt', raw);
      expect(await createDeviceMemoryStore('p:corrupt').load()).toBeUndefined();
    }
    sessionStorage.setItem('agent-chat:p:corrupt', `{"o":"-","d":{"":"kept","x":5},"t":${Date.now()}}`);
    expect((await createDeviceMemoryStore('p:corrupt').load())?.drafts).toEqual({ '': 'kept' });
  });

  it("clearDeviceMemory() forgets every widget's stash, and nothing of the site's own", async () => {
    sessionStorage.setItem('site-cart', '3 items');
    createDeviceMemoryStore('p:one').stash(drafts({ '': 'a' }, null));
    createDeviceMemoryStore('p:two').stash(drafts({ '': 'b' }, null));
    await clearDeviceMemory();
    expect(stashes()).toEqual([]);
    expect(sessionStorage.getItem('site-cart')).toBe('3 items');
    sessionStorage.removeItem('site-cart');
  });
});

/** A question, and its answer as the service began it (§4's `stream_start`), or not yet. */
const question = (id: string, status: ChatMessage['status'] = 'sent'): ChatMessage => ({
  id,
  role: 'user',
  content: 'How do I theme it?',
  sources: [],
  status,
});
const answer = (id: string, questionAnswerId: string, status: ChatMessage['status'] = 'streaming') => ({
  id,
  role: 'assistant' as const,
  content: 'Style the widget from your page '.repeat(50),
  sources: [],
  status,
  questionAnswerId,
});

describe('the stash: what the visitor sent just before the page went (decision 451)', () => {
  const earlier = [message(0), message(1)];
  /** What the tab held at pagehide: the device's conversation and then `sent`. */
  const leftWith = (threadId: string | null, sent: ChatMessage[], extra = {}) => ({
    ...drafts({}, 'key-alice'),
    activeThreadId: threadId,
    messages: [...earlier, ...sent],
    ...extra,
  });

  it('a question whose answer had started comes back after its thread, its answer by id, to reattach to', async () => {
    const tab = createDeviceMemoryStore('p:started');
    await tab.save(state(earlier, { ownerKey: 'key-alice' }));
    tab.stash(leftWith('th_1', [question('q'), answer('a', 'qa_1')]));
    expect(sessionStorage.getItem('agent-chat:p:started')).not.toContain('Style the widget');
    const read = await createDeviceMemoryStore('p:started').load();
    expect(read?.activeThreadId).toBe('th_1');
    expect(read?.messages).toEqual([
      ...earlier,
      question('q'),
      {
        id: 'a',
        role: 'assistant',
        content: '',
        sources: [],
        status: 'interrupted',
        questionAnswerId: 'qa_1',
      },
    ]);
  });

  it('one that started a new thread comes back alone in that thread, not after the thread the device showed', async () => {
    await createDeviceMemoryStore('p:new').save(state(earlier, { ownerKey: 'key-alice' }));
    createDeviceMemoryStore('p:new').stash({
      ...leftWith('th_2', [question('q'), answer('a', 'qa_2', 'complete')]),
      messages: [question('q'), answer('a', 'qa_2', 'complete')],
    });
    const read = await createDeviceMemoryStore('p:new').load();
    expect(read?.activeThreadId).toBe('th_2');
    expect(read?.messages.map((m) => [m.id, m.status, m.questionAnswerId])).toEqual([
      ['q', 'sent', undefined],
      ['a', 'interrupted', 'qa_2'],
    ]);
  });

  it('one whose answer had not started comes back not sent (Retry), in the thread it was asked in', async () => {
    await createDeviceMemoryStore('p:unsent').save(state(earlier, { ownerKey: 'key-alice' }));
    createDeviceMemoryStore('p:unsent').stash(leftWith('th_1', [question('q', 'sending')]));
    const read = await createDeviceMemoryStore('p:unsent').load();
    expect(read?.activeThreadId).toBe('th_1');
    expect(read?.messages.map((m) => [m.id, m.status])).toEqual([
      ['m0', 'complete'],
      ['m1', 'complete'],
      ['q', 'failed'],
    ]);
  });

  it('leaves what the device holds of it as it is: a reload after the write landed shows the answer as written', async () => {
    const written = [...earlier, question('q'), answer('a', 'qa_1', 'complete')];
    await createDeviceMemoryStore('p:landed').save(state(written, { ownerKey: 'key-alice' }));
    createDeviceMemoryStore('p:landed').stash(leftWith('th_1', [question('q'), answer('a', 'qa_1')]));
    expect((await createDeviceMemoryStore('p:landed').load())?.messages).toEqual(written);

    // The question was written still sending, then its answer started: the answer follows it, once.
    await createDeviceMemoryStore('p:half').save(
      state([...earlier, question('q', 'sending')], { ownerKey: 'key-alice' }),
    );
    createDeviceMemoryStore('p:half').stash(leftWith('th_1', [question('q'), answer('a', 'qa_1')]));
    const half = await createDeviceMemoryStore('p:half').load();
    expect(half?.messages.map((m) => [m.id, m.status])).toEqual([
      ['m0', 'complete'],
      ['m1', 'complete'],
      ['q', 'sent'],
      ['a', 'interrupted'],
    ]);
  });

  it('the outbox comes back with it: questions that waited were never sent', async () => {
    await createDeviceMemoryStore('p:outbox').save(state(earlier, { ownerKey: 'key-alice' }));
    createDeviceMemoryStore('p:outbox').stash(
      leftWith('th_1', [question('q'), answer('a', 'qa_1')], { outbox: [{ id: 'o1', text: 'and then?' }] }),
    );
    expect((await createDeviceMemoryStore('p:outbox').load())?.outbox).toEqual([
      { id: 'o1', text: 'and then?' },
    ]);
  });

  it("never joins another owner's record, nor outlives the load", async () => {
    await createDeviceMemoryStore('p:bob').save(state(earlier, { ownerKey: 'key-bob' }));
    createDeviceMemoryStore('p:bob').stash(
      leftWith('th_1', [question('q', 'sending')], { outbox: [{ id: 'o1', text: "Alice's" }] }),
    );
    const read = await createDeviceMemoryStore('p:bob').load();
    expect(read).toMatchObject({ ownerKey: 'key-bob', messages: earlier, outbox: [] });
    expect(stashes()).toEqual([]);
  });
});

/** A public visitor's row for a thread, touched now. */
const keptRow = (id: string): ThreadSummary => {
  const at = new Date().toISOString();
  return { id, title: `About ${id}`, created_at: at, updated_at: at, preview: 'An answer' };
};
/** A question and an answer as long as an agent's usual one (about 500 characters). */
const turn = (i: number): ChatMessage[] => [
  message(2 * i, `Question ${i}?`),
  message(2 * i + 1, `An answer of some length, as an agent writes one, number ${i}. `.repeat(8)),
];
/** The keys the device holds for a scope's conversations: chunks (`:m:`) and kept threads (`:t:`). */
const stored = async (scope: string) =>
  (await keys(createStore('agent-chat', 'ui-state'))).map(String).filter((k) => k.startsWith(`${scope}:ui:`));

describe("a public visitor's kept conversations on the device (decisions 521, 522)", () => {
  it('an answer in a 40-message conversation writes its chunk and the head, never the thread; left, the thread keeps its chunks; opened again, none is rewritten; deleted, all go', async () => {
    const { store, puts, written } = countingStore();
    const tab = createDeviceMemoryStore('p:kept', { store });
    let messages: ChatMessage[] = [];
    let rows: ThreadSummary[] = [];
    const perAnswer: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      messages = [...messages, ...turn(i)];
      const before = rows;
      rows = [keptRow('th_1')];
      written.bytes = 0;
      puts.length = 0;
      await tab.save(state(messages, { threads: rows }), before);
      perAnswer.push(written.bytes);
      // The panel, the one chunk the answer is in, the head: no copy of the thread.
      expect(puts.filter((k) => k.includes(':m:'))).toHaveLength(1);
      expect(puts.filter((k) => k.includes(':t:'))).toEqual([]);
    }
    const thread = JSON.stringify(messages).length;
    expect(messages).toHaveLength(40);
    // The 40th message's answer wrote its chunk (messages 33 to 40) and the head: less than half
    // the thread, which decision 518's first version wrote whole besides, at every answer.
    expect(perAnswer.at(-1)).toBeLessThan(thread / 2);

    // A new conversation: the thread keeps the chunks it has, named by its record; none is copied.
    puts.length = 0;
    written.bytes = 0;
    await tab.save(state([], { activeThreadId: null, threads: rows }), rows);
    expect(puts.filter((k) => k.includes(':m:'))).toEqual([]);
    expect(puts.filter((k) => k.includes(':t:'))).toEqual(['p:kept:ui:t:th_1']);
    expect(written.bytes).toBeLessThan(1_000);

    // Read back by a reload, whole and in order; opened, its chunks are the active ones as they are.
    const reloaded = createDeviceMemoryStore('p:kept', { store });
    await reloaded.load();
    const read = await reloaded.keptThread('th_1');
    expect(read?.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    puts.length = 0;
    await reloaded.save(state(read!, { threads: rows }), rows);
    expect(puts.filter((k) => k.includes(':m:'))).toEqual([]);
    expect((await stored('p:kept')).filter((k) => k.includes(':t:'))).toEqual([]);
    expect((await createDeviceMemoryStore('p:kept').load())?.messages).toHaveLength(40);

    // Deleted (its row leaves the list), nothing of it stays.
    await reloaded.save(state([], { activeThreadId: null, threads: [] }), rows);
    expect(await stored('p:kept')).toEqual([]);
  });

  it('two tabs that each end an answer in another thread at once keep both rows, on the device and on both screens; a Delete is not brought back', async () => {
    const tabs = [createDeviceMemoryStore('p:race'), createDeviceMemoryStore('p:race')];
    const shown: ThreadSummary[][][] = [[], []];
    tabs.forEach((tab, i) => tab.watch((change) => shown[i].push(change.state?.threads ?? [])));
    await Promise.all(tabs.map((tab) => tab.load()));
    const [x, y] = [keptRow('th_x'), keptRow('th_y')];
    // Neither tab has heard of the other's answer when it writes its row.
    await Promise.all([
      tabs[0].save(state(turn(0), { activeThreadId: 'th_x', threads: [x] }), []),
      tabs[1].save(state(turn(1), { activeThreadId: 'th_y', threads: [y] }), []),
    ]);
    const ids = (rows?: readonly ThreadSummary[]) => rows?.map((t) => t.id).sort();
    expect(ids((await createDeviceMemoryStore('p:race').load())?.threads)).toEqual(['th_x', 'th_y']);
    // The first is told by the second's write, the second by its own (the device held more).
    await expect.poll(() => ids(shown[0].at(-1))).toEqual(['th_x', 'th_y']);
    await expect.poll(() => ids(shown[1].at(-1))).toEqual(['th_x', 'th_y']);
    // The thread the second tab's write took the screen from kept its messages.
    expect((await tabs[1].keptThread('th_x'))?.map((m) => m.content)).toEqual(turn(0).map((m) => m.content));

    // One tab deletes a row while the other, not told yet, renames the other row.
    const both = [x, y];
    await Promise.all([
      tabs[0].save(state(turn(1), { activeThreadId: 'th_y', threads: [y] }), both),
      tabs[1].save(
        state(turn(1), { activeThreadId: 'th_y', threads: [x, { ...y, title: 'Renamed' }] }),
        both,
      ),
    ]);
    const after = await createDeviceMemoryStore('p:race').load();
    expect(after?.threads.map((t) => [t.id, t.title])).toEqual([['th_y', 'Renamed']]);
    expect((await stored('p:race')).filter((k) => k.includes(':t:'))).toEqual([]);
  });

  it("two tabs answering in two threads at once: each tab's write puts back the chunks the other's deleted, and a thread no longer on screen gets its record", async () => {
    // Neither tab follows the other: each one's messages are still on the way.
    const [a, b] = [createDeviceMemoryStore('p:both'), createDeviceMemoryStore('p:both')];
    const x = Array.from({ length: 17 }, (_, i) => turn(i)).flat();
    const y = turn(20);
    await a.save(state(x, { activeThreadId: 'th_x' }), []);
    // The second tab's question takes the head: the first's chunks, no row yet, are deleted.
    await b.save(state(y, { activeThreadId: 'th_y' }), []);
    // The first tab's answer grows (its last chunk), its first chunk unchanged: written again.
    const more = [...x, ...turn(17)];
    await a.save(state(more, { activeThreadId: 'th_x', threads: [keptRow('th_x')] }), []);
    expect((await createDeviceMemoryStore('p:both').load())?.messages.map((m) => m.id)).toEqual(
      more.map((m) => m.id),
    );
    // The second tab's answer ends in a thread the device no longer shows: it keeps it.
    await b.save(state(y, { activeThreadId: 'th_y', threads: [keptRow('th_y')] }), []);
    const reader = createDeviceMemoryStore('p:both');
    expect((await reader.load())?.threads.map((t) => t.id).sort()).toEqual(['th_x', 'th_y']);
    expect((await reader.keptThread('th_y'))?.map((m) => m.content)).toEqual(y.map((m) => m.content));
    expect(await reader.keptThread('th_x')).toHaveLength(36);
  });
});
