/** The composer's files in the core: the page's rules, uploads against the reference service, the question that carries them, the outbox and the device. */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Attachments, DEFAULT_RULES, guessKind } from '../../../src/chat/attachments.js';
import type { FileInfo } from '../../../src/api/types.js';
import { pngHeader } from '../../fixtures/files.js';
import { backend, device, keyOf, session, settle } from '../../helpers/chat-session.js';

const file = (bytes: BlobPart, name: string, type = '') => new File([bytes], name, { type });

describe('guessKind', () => {
  it('takes what the service takes and refuses markup, archives and media whatever they are called', () => {
    expect(guessKind({ name: 'a.png', type: 'image/png' })).toBe('image');
    expect(guessKind({ name: 'a', type: 'application/pdf' })).toBe('pdf');
    expect(guessKind({ name: 'app.log', type: '' })).toBe('text');
    expect(guessKind({ name: 'data.json', type: 'application/json' })).toBe('text');
    expect(guessKind({ name: 'x.png', type: 'image/svg+xml' })).toBeNull();
    expect(guessKind({ name: 'page.html', type: 'text/plain' })).toBeNull();
    expect(guessKind({ name: 'logs.zip', type: 'application/zip' })).toBeNull();
    expect(guessKind({ name: 'photo.heic', type: 'image/heic' })).toBeNull();
    expect(guessKind({ name: 'a.mp4', type: 'video/mp4' })).toBeNull();
  });
});

describe('Attachments', () => {
  const tray = (
    upload: (f: File, p: (x: number) => void) => Promise<FileInfo>,
    rules = DEFAULT_RULES,
    fetchFile: (id: string) => Promise<Blob> = () => Promise.reject(new Error('not asked')),
  ) =>
    new Attachments({
      onChange: () => {},
      rules: () => rules,
      formatBytes: (n) => `${n} B`,
      upload: (f, p) => upload(f, p),
      fetchFile,
    });
  const info = (name: string): FileInfo => ({
    file_id: `file_${name}`,
    name,
    size: 1,
    content_type: 'text/plain',
    kind: 'text',
  });

  it("fetches a sent file's bytes once as a blob: URL, keeps a failure without asking again, and forgets both on clear", async () => {
    const fetchFile = vi.fn(async (id: string) => {
      if (id === 'file_gone') throw new Error('404');
      return new Blob(['bytes'], { type: 'image/png' });
    });
    const files = tray(() => new Promise(() => {}), DEFAULT_RULES, fetchFile);
    const [first, again] = await Promise.all([files.fileUrl('file_a'), files.fileUrl('file_a')]);
    expect(first).toMatch(/^blob:/);
    expect(again).toBe(first);
    expect(files.urls.get('file_a')).toBe(first);
    expect(await files.fileUrl('file_gone')).toBeNull();
    expect(await files.fileUrl('file_gone')).toBeNull();
    expect(fetchFile.mock.calls.map(([id]) => id)).toEqual(['file_a', 'file_gone']);
    files.clear();
    expect(files.urls.size).toBe(0);
    await files.fileUrl('file_a');
    expect(fetchFile).toHaveBeenCalledTimes(3);
  });

  it('refuses by type, size and count in the notice, and uploads the rest with their progress', async () => {
    let report: (x: number) => void = () => {};
    let finish: (info: FileInfo) => void = () => {};
    const files = tray(
      (f, progress) => {
        report = progress;
        return new Promise((resolve) => (finish = resolve));
      },
      { ...DEFAULT_RULES, maxFiles: 2, maxBytes: { ...DEFAULT_RULES.maxBytes, text: 5 } },
    );
    files.add([file('<svg/>', 'x.svg', 'image/svg+xml')]);
    expect(files.notice).toEqual({ key: 'fileTypeRefused', values: { name: 'x.svg', allowed: '' } });
    files.add([file('123456', 'big.txt')]);
    expect(files.notice).toEqual({ key: 'fileTooLarge', values: { name: 'big.txt', max: '5 B' } });
    files.add([file('ok', 'a.txt'), file('ok', 'b.txt'), file('ok', 'c.txt')]);
    expect(files.notice).toEqual({ key: 'tooManyFiles', values: { count: 2 } });
    expect(files.files.map((f) => [f.name, f.status])).toEqual([
      ['a.txt', 'uploading'],
      ['b.txt', 'uploading'],
    ]);
    report(0.5);
    expect(files.files[1].progress).toBe(0.5);
    expect(files.ready).toBe(false);
    finish(info('b.txt'));
    await vi.waitFor(() => expect(files.files[1].status).toBe('ready'));
    files.remove(files.files[0].id);
    expect(files.ready).toBe(true);
    expect(files.take()).toEqual([info('b.txt')]);
    expect(files.files).toEqual([]);
  });
});

describe('ChatSession with files', () => {
  it('uploads to the service, sends the question with them, and shows them on the question and in the resumed thread', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat } = session(server, device());
    chat.attachments.add([file(pngHeader(), 'shot.png', 'image/png'), file('ERROR', 'app.log')]);
    await vi.waitFor(() => expect(chat.attachments.ready).toBe(true));
    expect(chat.snapshot.attachments.files.map((f) => [f.name, f.kind, f.progress])).toEqual([
      ['shot.png', 'image', 1],
      ['app.log', 'text', 1],
    ]);
    expect(await chat.sendComposed('What is wrong?')).toBe(true);
    const [question, answer] = chat.snapshot.conversation.messages;
    expect(question.attachments?.map((f) => f.name)).toEqual(['shot.png', 'app.log']);
    expect(answer.content).toContain('`shot.png` (image');
    expect(chat.snapshot.attachments.files).toEqual([]);
    const threadId = chat.snapshot.conversation.threadId!;
    chat.newConversation();
    await chat.openThread(threadId);
    expect(chat.snapshot.conversation.messages[0].attachments?.map((f) => [f.name, f.kind])).toEqual([
      ['shot.png', 'image'],
      ['app.log', 'text'],
    ]);
  });

  it('sends files alone, asks to wait while one uploads, and names what the service refused', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat } = session(server, device());
    // A .txt whose bytes are markup: the browser cannot tell, the service refuses it.
    chat.attachments.add([file('<!DOCTYPE html><html></html>', 'notes.txt', 'text/plain')]);
    expect(await chat.sendComposed('')).toBe(false);
    expect(chat.snapshot.attachments.notice?.key).toBe('waitForUploads');
    await vi.waitFor(() => expect(chat.snapshot.attachments.files[0].status).toBe('failed'));
    expect(chat.snapshot.attachments.notice).toEqual({
      key: 'fileTypeRefused',
      values: { name: 'notes.txt', allowed: '' },
    });
    expect(await chat.sendComposed('')).toBe(false);
    chat.attachments.remove(chat.snapshot.attachments.files[0].id);
    chat.attachments.add([file('just a log', 'run.log')]);
    await vi.waitFor(() => expect(chat.attachments.ready).toBe(true));
    expect(await chat.sendComposed('')).toBe(true);
    expect(chat.snapshot.conversation.messages[0]).toMatchObject({
      content: '',
      attachments: [{ name: 'run.log' }],
    });
  });

  it('keeps a queued question with its uploaded files on the device, and sends them after a reload', async () => {
    const server = backend();
    server.signIn('alice');
    const memory = device();
    // The page names its visitor (owner-key), so what the device keeps for them shows at once.
    const first = session(server, memory, { ownerKey: keyOf('alice') });
    first.chat.attachments.add([file('trace', 'trace.txt')]);
    await vi.waitFor(() => expect(first.chat.attachments.ready).toBe(true));
    let online = false;
    const page = new EventTarget();
    vi.stubGlobal('addEventListener', page.addEventListener.bind(page));
    vi.stubGlobal('removeEventListener', page.removeEventListener.bind(page));
    vi.stubGlobal('navigator', {
      get onLine() {
        return online;
      },
    });
    onTestFinished(() => void vi.unstubAllGlobals());
    expect(await first.chat.sendComposed('Later, with the trace')).toBe(true);
    expect(first.chat.snapshot.outbox[0].attachments?.map((f) => f.name)).toEqual(['trace.txt']);
    await settle(first.chat);
    first.chat.disconnect();
    const second = session(server, memory, { ownerKey: keyOf('alice') });
    await settle(second.chat);
    expect(second.chat.snapshot.outbox[0].attachments?.map((f) => f.name)).toEqual(['trace.txt']);
    online = true;
    page.dispatchEvent(new Event('online'));
    await vi.waitFor(() =>
      expect(second.chat.snapshot.conversation.messages.map((m) => m.status)).toEqual(['sent', 'complete']),
    );
    expect(second.chat.snapshot.conversation.messages[0].attachments?.map((f) => f.name)).toEqual([
      'trace.txt',
    ]);
  });
});
