/** Files in a question (§11): pick, drop, paste, remove, refuse, send and resume, with axe in each state. */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { http } from 'msw';
import { ownerKeyOf, SERVICE_BASE } from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import { storedMemory } from '../../../helpers/idb.js';
import {
  composerOf,
  deepActiveElement,
  fixtureChat,
  messagesOf,
  nextAnswerEnd,
  openThreadList,
  settled,
  textareaOf,
  threadListOf,
  typeMessage,
  fileTransfer,
  logFile,
  pickFiles,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

/** A real 1×1 PNG: the service reads its size, the browser draws its thumbnail. */
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
const png = (name = 'screenshot.png') => new File([PNG], name, { type: 'image/png' });

const composerRoot = (el: AgentChat) => composerOf(el).shadowRoot!;
/** A button by its accessible name: its aria-label, else its text a screen reader reads (not what is aria-hidden). */
const named = (root: ShadowRoot | Element, name: string) =>
  Array.from(root.querySelectorAll<HTMLElement>('button')).find(
    (b) =>
      (b.getAttribute('aria-label') ??
        Array.from(b.querySelectorAll('.visually-hidden'), (s) => s.textContent).join('')) === name,
  );
const chips = (el: AgentChat) =>
  Array.from(composerRoot(el).querySelectorAll('.tray .chip')).map((c) => ({
    name: c.querySelector('.name')?.textContent,
    size: c.querySelector('.size')?.textContent,
    thumbnail: c.querySelector<HTMLImageElement>('img.thumb')?.src.startsWith('blob:') ?? false,
    status: c.classList.contains('ready') ? 'ready' : c.classList.contains('failed') ? 'failed' : 'uploading',
  }));
const notice = (el: AgentChat) => composerRoot(el).querySelector('.notice')?.textContent?.trim() ?? '';

const allReady = (el: AgentChat) =>
  expect.poll(() => chips(el).every((c) => c.status === 'ready') && chips(el).length > 0).toBe(true);

describe('<agent-chat> attachments', () => {
  test('"Attach files" opens the picker; picked files show as chips with name, size and thumbnail, then go with the question', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const attach = named(composerRoot(el), 'Attach files')!;
    expect(attach).toBeTruthy();
    const input = composerRoot(el).querySelector<HTMLInputElement>('input[type=file]')!;
    const opened = vi.spyOn(input, 'click').mockImplementation(() => {});
    attach.click();
    expect(opened).toHaveBeenCalledOnce();

    await pickFiles(el, png(), logFile());
    await allReady(el);
    expect(chips(el)).toEqual([
      { name: 'screenshot.png', size: expect.stringMatching(/\d+ B$/), thumbnail: true, status: 'ready' },
      { name: 'server.log', size: '26 B', thumbnail: false, status: 'ready' },
    ]);
    expect(named(composerRoot(el), 'Remove screenshot.png')).toBeTruthy();
    await chaiExpect(el).to.be.accessible();

    await typeMessage(el, 'Why does it fail?');
    const ended = nextAnswerEnd(el);
    textareaOf(el).dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
    );
    await ended;
    await settled(el);
    const body = await backend.chatRequests()[0].clone().json();
    expect(body.message).toBe('Why does it fail?');
    expect(body.attachments).toHaveLength(2);
    expect(chips(el)).toEqual([]);
    // The question's bubble shows its files: the image as a thumbnail, the log as a download chip.
    const question = messagesOf(el)[0].shadowRoot!;
    await expect.poll(() => question.querySelector('.files img')?.getAttribute('src')).toMatch(/^blob:/);
    expect(named(question, 'Download screenshot.png')).toBeTruthy();
    expect(named(question, 'Download server.log, 26 B')!.textContent).toContain('server.log');
    // The demo agent says what it got.
    expect(messagesOf(el)[1].shadowRoot!.textContent).toContain('server.log');
    await chaiExpect(el).to.be.accessible();
  });

  test('files dropped on the panel are attached, with "Drop files to attach" while they hover', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const panel = el.shadowRoot!.querySelector('.panel')!;
    const data = fileTransfer(logFile('notes.md', '# Notes'));
    panel.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true, composed: true }));
    await settled(el);
    await expect
      .poll(() => el.shadowRoot!.querySelector('.overlay')?.textContent)
      .toBe('Drop files to attach');
    await chaiExpect(el).to.be.accessible();
    panel.dispatchEvent(
      new DragEvent('drop', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }),
    );
    await settled(el);
    expect(el.shadowRoot!.querySelector('.overlay')).toBeNull();
    await allReady(el);
    expect(chips(el).map((c) => c.name)).toEqual(['notes.md']);
    void backend;
  });

  test('a pasted screenshot is attached; pasted text stays text', async ({ backend }) => {
    const el = await fixtureChat();
    const paste = (data: DataTransfer) => {
      const event = new ClipboardEvent('paste', {
        clipboardData: data,
        bubbles: true,
        cancelable: true,
        composed: true,
      });
      textareaOf(el).dispatchEvent(event);
      return event.defaultPrevented;
    };
    const text = new DataTransfer();
    text.setData('text/plain', 'hello');
    expect(paste(text)).toBe(false);
    expect(paste(fileTransfer(png('image.png')))).toBe(true);
    await settled(el);
    await allReady(el);
    expect(chips(el)).toMatchObject([{ name: 'image.png', thumbnail: true }]);
    void backend;
  });

  test('Remove <name> takes the file off (the focus stays in the message box); the question goes without it', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await pickFiles(el, png(), logFile());
    await allReady(el);
    named(composerRoot(el), 'Remove screenshot.png')!.focus();
    await userEvent.keyboard('{Enter}');
    await settled(el);
    expect(chips(el).map((c) => c.name)).toEqual(['server.log']);
    expect(deepActiveElement()).toBe(textareaOf(el));
    // Files alone are a question too.
    const ended = nextAnswerEnd(el);
    named(composerRoot(el), 'Send')!.click();
    await ended;
    const body = await backend.chatRequests()[0].clone().json();
    expect(body.attachments).toHaveLength(1);
    expect(body.message).toBe('');
  });

  test("refusals in the visitor's words: the type, the size, the count (and the service's own refusal)", async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.setAttribute('attachment-max-files', '2');
    el.setAttribute('attachment-max-size', '100');
    await settled(el);
    await pickFiles(el, new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    expect(notice(el)).toBe("logo.svg can't be attached. You can attach images, text files, and PDFs.");
    expect(composerRoot(el).querySelector('.notice')!.getAttribute('role')).toBe('alert');
    await chaiExpect(el).to.be.accessible();
    await pickFiles(el, logFile('big.log', 'x'.repeat(200)));
    expect(notice(el)).toBe('big.log is too large: files like it may be up to 100 B.');
    await pickFiles(el, logFile('a.log'), logFile('b.log'), logFile('c.log'));
    expect(notice(el)).toBe('You can attach up to 2 files to a question.');
    expect(chips(el).map((c) => c.name)).toEqual(['a.log', 'b.log']);
    await allReady(el);
    named(composerRoot(el), 'Remove a.log')!.click();
    named(composerRoot(el), 'Remove b.log')!.click();
    await settled(el);
    // Bytes that lie about their type: the service decides from them (415), the chip says so.
    await pickFiles(
      el,
      new File([new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0])], 'tool.txt', { type: 'text/plain' }),
    );
    await expect.poll(() => chips(el)[0]?.status).toBe('failed');
    expect(notice(el)).toBe("tool.txt can't be attached. You can attach images, text files, and PDFs.");
    await chaiExpect(el).to.be.accessible();
    void backend;
  });

  test("attachment-types narrows the picker, and a refusal reads in the visitor's language (German)", async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.lang = 'de';
    el.setAttribute('attachment-types', 'image');
    await settled(el);
    await expect.poll(() => named(composerRoot(el), 'Dateien anhängen')).toBeTruthy();
    expect(composerRoot(el).querySelector('input[type=file]')!.getAttribute('accept')).toContain('image/png');
    await pickFiles(el, logFile());
    expect(notice(el)).toContain('server.log');
    expect(notice(el)).toContain('Bilder');
    void backend;
  });

  test('attachments="off": no "Attach files", and dropped or pasted files are not taken', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.setAttribute('attachments', 'off');
    await settled(el);
    expect(named(composerRoot(el), 'Attach files')).toBeUndefined();
    const drop = new DragEvent('drop', {
      dataTransfer: fileTransfer(logFile()),
      bubbles: true,
      composed: true,
      cancelable: true,
    });
    el.shadowRoot!.querySelector('.panel')!.dispatchEvent(drop);
    const paste = new ClipboardEvent('paste', {
      clipboardData: fileTransfer(png()),
      bubbles: true,
      cancelable: true,
      composed: true,
    });
    textareaOf(el).dispatchEvent(paste);
    await settled(el);
    expect(drop.defaultPrevented).toBe(false);
    expect(paste.defaultPrevented).toBe(false);
    expect(chips(el)).toEqual([]);
    expect(backend.serviceRequests.filter((r) => r.url.includes('/files/'))).toEqual([]);
  });

  test("a resumed thread lists its question's files; the image's thumbnail is fetched with the token", async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await pickFiles(el, png(), logFile());
    await allReady(el);
    await typeMessage(el, 'See attached');
    const ended = nextAnswerEnd(el);
    named(composerRoot(el), 'Send')!.click();
    await ended;
    el.remove();

    // Another device: nothing of this tab's uploads, the thread from the service. The page's
    // widgets hold the database open, so deleting it would wait on them (and a new open behind
    // it): its records are cleared instead, done before the next widget reads.
    await clearDeviceMemory();
    const again = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await openThreadList(again);
    await expect
      .poll(() => threadListOf(again).shadowRoot!.querySelectorAll('[role=option], li button').length)
      .toBeGreaterThan(0);
    const item = Array.from(
      threadListOf(again).shadowRoot!.querySelectorAll<HTMLElement>('button, [role=option]'),
    ).find((b) => b.textContent?.includes('See attached'))!;
    item.click();
    await expect.poll(() => messagesOf(again).length).toBe(2);
    await settled(again);
    const question = messagesOf(again)[0].shadowRoot!;
    await expect
      .poll(() => question.querySelector('.files img')?.getAttribute('src') ?? '')
      .toMatch(/^blob:/);
    expect(named(question, 'Download server.log, 26 B')).toBeTruthy();
    const fetched = backend.serviceRequests.filter(
      (r) => r.method === 'GET' && /\/files\/[^/?]+\/$/.test(new URL(r.url).pathname),
    );
    expect(fetched).toHaveLength(1);
    expect(fetched[0].headers.get('Authorization')).toMatch(/^Bearer /);
    await chaiExpect(again).to.be.accessible();
  });

  test('Send waits while a file uploads (its chip shows the progress), then goes with it', async ({
    worker,
    backend,
  }) => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    worker.use(
      http.post(`${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/files/`, async ({ request }) => {
        await held;
        return backend.service.handle(request);
      }),
    );
    const el = await fixtureChat();
    await pickFiles(el, logFile());
    expect(chips(el)).toMatchObject([{ name: 'server.log', status: 'uploading' }]);
    const progress = composerRoot(el).querySelector('progress')!;
    expect(progress.getAttribute('aria-label')).toMatch(/^Uploading server\.log: \d+ %$/);
    await typeMessage(el, 'What went wrong?');
    named(composerRoot(el), 'Send')!.click();
    await settled(el);
    expect(notice(el)).toBe('Wait until your files have uploaded.');
    expect(backend.chatRequests()).toHaveLength(0);
    await chaiExpect(el).to.be.accessible();
    release();
    await allReady(el);
    const ended = nextAnswerEnd(el);
    named(composerRoot(el), 'Send')!.click();
    await ended;
    expect((await backend.chatRequests()[0].clone().json()).attachments).toHaveLength(1);
  });

  describe('after a reload', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 10 }) }));

    test('files still in the composer are gone (the draft stays); a queued question keeps its files and sends them', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      // A question streams; a second one with a file waits in the outbox.
      void el.send('How do I theme it?');
      await expect.poll(() => messagesOf(el).at(-1)?.message?.questionAnswerId).toBeTruthy();
      await pickFiles(el, logFile('queued.log'));
      await allReady(el);
      await typeMessage(el, 'And this log?');
      // The button is Stop while the answer streams: Enter puts the question in the outbox.
      textareaOf(el).dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
      );
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And this log?');
      // The queued question shows its file beside its words: a visitor offline sees it will go too.
      const queued = el.shadowRoot!.querySelector('ul[aria-label="Queued"] > li')!;
      expect(queued.textContent!.replace(/\s+/g, ' ')).toContain('And this log? queued.log');
      // A third file is picked and uploaded but not sent, with a draft.
      await pickFiles(el, logFile('unsent.log'));
      await allReady(el);
      await typeMessage(el, 'Half-written');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await expect
        .poll(async () => (await storedMemory())?.outbox.map((q) => q.attachments?.map((f) => f.name)))
        .toEqual([['queued.log']]);
      el.remove();

      const again = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      expect(chips(again)).toEqual([]);
      expect(textareaOf(again).value).toBe('Half-written');
      await expect.poll(() => messagesOf(again).length, { timeout: 8000 }).toBe(4);
      await expect.poll(() => messagesOf(again).at(-1)?.message?.status, { timeout: 8000 }).toBe('complete');
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([
        ['How do I theme it?', 0],
        ['And this log?', 1],
      ]);
      await settled(again);
      expect(named(messagesOf(again)[2].shadowRoot!, 'Download queued.log, 26 B')).toBeTruthy();
    });
  });
});

/** Empties the widgets' device memory (every scope) through a connection of its own, closed after. */
function clearDeviceMemory(): Promise<void> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('agent-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('ui-state', 'readwrite');
      tx.objectStore('ui-state').clear();
      tx.oncomplete = () => {
        db.close();
        resolve();
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}
