/**
 * A question's files are part of what the visitor sent: a send that does not go keeps them, in
 * the tray or on the question, as it keeps the text (wire-contract §11).
 */
import { describe, expect, onTestFinished, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import {
  ownerKeyOf,
  PROJECT_ID,
  SERVICE_BASE,
  SESSION_ENDPOINT,
  type ReferenceBackend,
} from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import { MAX_OUTBOX } from '../../../../src/chat/outbox.js';
import {
  fixtureChat,
  logFile,
  messagesOf,
  nextAnswerEnd,
  pickFiles,
  settled,
  threadListOf,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const box = () => page.getByRole('textbox', { name: 'Message' });
/** The tray holds the file: its "Remove <name>" button is there. */
const inTray = (name: string) => page.getByRole('button', { name: `Remove ${name}` });
/** Every file in the tray is uploaded (there is one at least). */
const uploaded = (el: AgentChat) =>
  expect
    .poll(() => {
      const chips = Array.from(
        el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelectorAll('.tray .chip'),
      );
      return chips.length > 0 && chips.every((c) => c.classList.contains('ready'));
    })
    .toBe(true);
const bodies = async (requests: Request[]) =>
  Promise.all(
    requests.map(async (r) => (await r.clone().json()) as { message: string; attachments?: unknown[] }),
  );

/** Attaches server.log, waits for its upload, types `text` into the message box. */
async function writeWithFile(el: AgentChat, text: string): Promise<void> {
  await pickFiles(el, logFile());
  await uploaded(el);
  await userEvent.fill(box(), text);
}

describe('<agent-chat> a question that cannot be sent keeps its files', () => {
  describe('with a slow answer', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 40 }) }));

    test('the outbox full: the question is refused, its text and its files stay in the composer', async ({
      backend,
    }) => {
      const el = await fixtureChat();
      void el.send('How do I theme it?');
      await expect.poll(() => messagesOf(el).at(-1)?.message?.role).toBe('assistant');
      for (let i = 1; i <= MAX_OUTBOX; i++) await el.send(`Queued ${i}`);
      await settled(el);
      await writeWithFile(el, 'And this log?');
      // The button is Stop while the answer streams: Enter sends.
      await userEvent.type(box(), '{Enter}');
      await settled(el);
      await expect.element(box()).toHaveValue('And this log?');
      await expect.element(inTray('server.log')).toBeInTheDocument();
      // Room made in the outbox, it goes, with its file.
      await userEvent.click(page.getByRole('button', { name: 'Remove queued message' }).first());
      await userEvent.type(box(), '{Enter}');
      await expect.element(inTray('server.log')).not.toBeInTheDocument();
      await expect
        .poll(
          async () =>
            (await bodies(backend.chatRequests())).map((b) => [b.message, b.attachments?.length ?? 0]),
          {
            timeout: 20_000,
          },
        )
        .toContainEqual(['And this log?', 1]);
    });
  });

  /**
   * Alice's two conversations, the list beside the second (the message box in reach), the first
   * chosen while the service's read of it is held; `reply` answers that read once released.
   */
  async function chosenWhileHeld(
    worker: { use: (...handlers: ReturnType<typeof http.get>[]) => void },
    backend: ReferenceBackend,
    reply: () => Response | undefined,
  ) {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    el.style.width = '900px';
    await el.send('How do I theme it?');
    await userEvent.click(page.getByRole('button', { name: 'New conversation' }));
    await el.send('Can it speak German?');
    await userEvent.click(page.getByRole('button', { name: 'Conversations' }));
    await expect.poll(() => threadListOf(el).shadowRoot?.querySelectorAll('li[data-id]').length).toBe(2);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    onTestFinished(() => release());
    worker.use(
      http.get(`${AGENT}/threads/:id/`, async () => {
        await held;
        return reply();
      }),
    );
    const chats = backend.chatRequests().length;
    await userEvent.click(page.getByRole('button', { name: /^How do I theme it\?/ }));
    return { el, chats, release };
  }

  test('a conversation chosen from the list that cannot be read: the question sent meanwhile keeps its files', async ({
    worker,
    backend,
  }) => {
    const { el, chats, release } = await chosenWhileHeld(worker, backend, () =>
      HttpResponse.json({ error: 'down' }, { status: 500 }),
    );
    const errors: number[] = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.status ?? 0));
    await writeWithFile(el, 'And this log?');
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    release();
    await expect.poll(() => errors).toEqual([500]);
    await settled(el);
    expect(backend.chatRequests()).toHaveLength(chats);
    await expect.element(box()).toHaveValue('And this log?');
    await expect.element(inTray('server.log')).toBeInTheDocument();
    // Sent again, it goes to the conversation on screen, with its file.
    const ended = nextAnswerEnd(el);
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await ended;
    const sent = await bodies(backend.chatRequests().slice(chats));
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
  });

  test('a conversation chosen from the list, read: the question sent meanwhile waits with its files, then goes there with them', async ({
    worker,
    backend,
  }) => {
    const { el, chats, release } = await chosenWhileHeld(worker, backend, () => undefined);
    await writeWithFile(el, 'And this log?');
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // It waits for the chosen conversation: its text in the box, its file in the tray.
    expect(backend.chatRequests()).toHaveLength(chats);
    await expect.element(box()).toHaveValue('And this log?');
    await expect.element(inTray('server.log')).toBeInTheDocument();
    const ended = nextAnswerEnd(el);
    release();
    await ended;
    await expect.element(inTray('server.log')).not.toBeInTheDocument();
    const sent = await bodies(backend.chatRequests().slice(chats));
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
    expect(messagesOf(el).map((m) => m.message?.content.slice(0, 18))).toEqual([
      'How do I theme it?',
      expect.any(String),
      'And this log?',
      expect.any(String),
    ]);
  });

  for (const offline of [true, false])
    test(`a question of files alone whose files are all removed while the chosen conversation is read (${offline ? 'offline' : 'online'}): nothing is sent or queued, the box stays empty`, async ({
      worker,
      backend,
    }) => {
      const { el, chats, release } = await chosenWhileHeld(worker, backend, () => undefined);
      await pickFiles(el, logFile());
      await uploaded(el);
      // Offline, a question that goes waits in the outbox instead.
      const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(!offline);
      onTestFinished(() => onLine.mockRestore());
      if (offline) dispatchEvent(new Event('offline'));
      await userEvent.click(page.getByRole('button', { name: 'Send' }));
      // It waits for the chosen conversation, its file in the tray: the visitor takes it off.
      await userEvent.click(inTray('server.log'));
      await expect.element(inTray('server.log')).not.toBeInTheDocument();
      release();
      await expect.poll(() => messagesOf(el)[0]?.message?.content).toBe('How do I theme it?');
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
      await expect.element(box()).toHaveValue('');
      onLine.mockReturnValue(true);
      dispatchEvent(new Event('online'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(backend.chatRequests()).toHaveLength(chats);
      expect(messagesOf(el)).toHaveLength(2);
    });

  test('offline: the question waits in the outbox with its files and goes with them once online', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    onTestFinished(() => onLine.mockRestore());
    dispatchEvent(new Event('offline'));
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await settled(el);
    expect(backend.chatRequests()).toHaveLength(0);
    expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And this log?');
    onLine.mockReturnValue(true);
    const ended = nextAnswerEnd(el);
    dispatchEvent(new Event('online'));
    expect((await ended).outcome).toBe('complete');
    const sent = await bodies(backend.chatRequests());
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
  });

  test('a request that meets the network gone: the question comes back to the outbox with its files, and goes with them', async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await writeWithFile(el, 'And this log?');
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    onTestFinished(() => onLine.mockRestore());
    // The connection drops as the question leaves: its request fails, the browser says offline.
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => {
          onLine.mockReturnValue(false);
          return HttpResponse.error();
        },
        { once: true },
      ),
    );
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect
      .poll(() => el.shadowRoot!.querySelector('.outbox')?.textContent ?? '')
      .toContain('And this log?');
    expect(messagesOf(el)).toHaveLength(0);
    // The failed request's end is written (the answer's lock goes with it) before the network
    // comes back, as it is in a browser: an `online` that came sooner would find the lock held.
    await expect.poll(async () => (await navigator.locks.query()).held?.length ?? 0).toBe(0);
    onLine.mockReturnValue(true);
    const ended = nextAnswerEnd(el);
    dispatchEvent(new Event('online'));
    expect((await ended).outcome).toBe('complete');
    const sent = await bodies(backend.chatRequests());
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
  });

  test('a question the page left before its answer came: the next load sends it again with its files', async ({
    worker,
    backend,
  }) => {
    // A signed-in visitor: the next load's session is hers too, and may send the files she uploaded.
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await writeWithFile(el, 'And this log?');
    let calls = 0;
    worker.use(http.post(`${AGENT}/chat/`, () => (calls++ ? undefined : new Promise<never>(() => {}))));
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => calls).toBe(1);
    // The navigation: the stash at pagehide, then the element goes with the page.
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    el.remove();
    const again = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    expect((await nextAnswerEnd(again)).outcome).toBe('complete');
    await settled(again);
    const sent = await bodies(backend.chatRequests());
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
    await expect.element(page.getByRole('button', { name: 'Download server.log, 26 B' })).toBeInTheDocument();
  });

  for (const [label, failing] of [
    [
      'a 500 at send',
      () => [
        http.post(`${AGENT}/chat/`, () => HttpResponse.json({ error: 'boom' }, { status: 500 }), {
          once: true,
        }),
      ],
    ],
    [
      'a session that fails at send (the token refused, no new one)',
      () => [
        http.post(
          `${AGENT}/chat/`,
          () => HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 }),
          { once: true },
        ),
        http.post(SESSION_ENDPOINT, () => new HttpResponse(null, { status: 500 }), { once: true }),
      ],
    ],
  ] as const)
    test(`${label}: the failed question shows its files, and Retry sends them`, async ({
      worker,
      backend,
    }) => {
      // A signed-in visitor: her files are hers, whichever of her sessions sends them (§11).
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      await writeWithFile(el, 'And this log?');
      worker.use(...failing());
      await userEvent.click(page.getByRole('button', { name: 'Send' }));
      await expect.poll(() => messagesOf(el)[0]?.message?.status).toBe('failed');
      await settled(el);
      await expect
        .element(page.getByRole('button', { name: 'Download server.log, 26 B' }))
        .toBeInTheDocument();
      const ended = nextAnswerEnd(el);
      await userEvent.click(page.getByRole('button', { name: 'Retry' }));
      expect((await ended).outcome).toBe('complete');
      const sent = await bodies(backend.chatRequests());
      expect(sent.at(-1)).toMatchObject({ message: 'And this log?', attachments: [expect.anything()] });
    });

  test('the page vetoes the question: its text and its files stay in the composer', async ({ backend }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    el.addEventListener('agent-chat-message-send', (e) => e.preventDefault(), { once: true });
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await settled(el);
    expect(backend.chatRequests()).toHaveLength(0);
    await expect.element(box()).toHaveValue('And this log?');
    await expect.element(inTray('server.log')).toBeInTheDocument();
  });

  test('a file whose upload failed: Send sends nothing and the tray keeps it, with the text', async ({
    worker,
    backend,
  }) => {
    worker.use(http.post(`${AGENT}/files/`, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    const el = await fixtureChat();
    await pickFiles(el, logFile());
    await userEvent.fill(box(), 'And this log?');
    await expect
      .poll(() =>
        el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('.chip.failed'),
      )
      .toBeTruthy();
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await settled(el);
    expect(backend.chatRequests()).toHaveLength(0);
    await expect.element(box()).toHaveValue('And this log?');
    await expect.element(inTray('server.log')).toBeInTheDocument();
  });
});
