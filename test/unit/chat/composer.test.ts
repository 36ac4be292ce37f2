/** What the visitor is writing, in the core: drafts per thread, and a question's files uploaded to the reference service, sent with it, kept in the outbox and on the device. */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { pngHeader } from '../../fixtures/files.js';
import { backend, device, keyOf, session, settle } from '../../helpers/chat-session.js';

const file = (bytes: BlobPart, name: string, type = '') => new File([bytes], name, { type });

describe('Composer', () => {
  it('keeps one draft per thread and clears the one that was sent', async () => {
    const server = backend();
    const { chat } = session(server, device());
    chat.composer.setDraft('half');
    expect(chat.snapshot.draft).toBe('half');
    await chat.send('half');
    expect(chat.snapshot.draft).toBe('');
    chat.composer.setDraft('for the thread');
    chat.newConversation();
    expect(chat.snapshot.draft).toBe('');
  });

  it('uploads to the service, sends the question with them, and shows them on the question and in the resumed thread', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat } = session(server, device());
    chat.composer.attachments.add([file(pngHeader(), 'shot.png', 'image/png'), file('ERROR', 'app.log')]);
    await vi.waitFor(() => expect(chat.composer.attachments.ready).toBe(true));
    expect(chat.snapshot.attachments.files.map((f) => [f.name, f.kind, f.progress])).toEqual([
      ['shot.png', 'image', 1],
      ['app.log', 'text', 1],
    ]);
    expect(await chat.composer.send('What is wrong?')).toBe(true);
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
    chat.composer.attachments.add([file('<!DOCTYPE html><html></html>', 'notes.txt', 'text/plain')]);
    expect(await chat.composer.send('')).toBe(false);
    expect(chat.snapshot.attachments.notice?.key).toBe('waitForUploads');
    await vi.waitFor(() => expect(chat.snapshot.attachments.files[0].status).toBe('failed'));
    expect(chat.snapshot.attachments.notice).toEqual({
      key: 'fileTypeRefused',
      values: { name: 'notes.txt', allowed: '' },
    });
    expect(await chat.composer.send('')).toBe(false);
    chat.composer.attachments.remove(chat.snapshot.attachments.files[0].id);
    chat.composer.attachments.add([file('just a log', 'run.log')]);
    await vi.waitFor(() => expect(chat.composer.attachments.ready).toBe(true));
    expect(await chat.composer.send('')).toBe(true);
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
    first.chat.composer.attachments.add([file('trace', 'trace.txt')]);
    await vi.waitFor(() => expect(first.chat.composer.attachments.ready).toBe(true));
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
    expect(await first.chat.composer.send('Later, with the trace')).toBe(true);
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
