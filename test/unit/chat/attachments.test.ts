/** The composer's files in the core: what the browser says of a file, the page's rules, uploads, refusals and sent files' URLs. */
import { describe, expect, it, vi } from 'vitest';
import { Attachments, DEFAULT_RULES, guessKind } from '../../../src/chat/attachments.js';
import type { FileInfo } from '../../../src/api/types.js';
import { ApiError } from '../../../src/api/errors.js';

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

  it("says a 429 for the day's files apart from one for files waiting to be sent", async () => {
    const refusal = new Map([
      ['today.png', new ApiError(429, 'budget_exhausted', 'x', { retryAfter: 3600 })],
      ['waiting.png', new ApiError(429, 'rate_limited', 'x', { retryAfter: 3600 })],
    ]);
    const files = tray((f) => Promise.reject(refusal.get(f.name)));
    files.add([file('png', 'today.png', 'image/png')]);
    await vi.waitFor(() => expect(files.notice).toEqual({ key: 'filesRefusedToday' }));
    files.add([file('png', 'waiting.png', 'image/png')]);
    await vi.waitFor(() => expect(files.notice).toEqual({ key: 'tooManyUnsentFiles' }));
  });

  it('take() hands over the uploaded files; one added since, still uploading, stays in the tray', async () => {
    const uploads: ((info: FileInfo) => void)[] = [];
    const files = tray(() => new Promise((resolve) => uploads.push(resolve)));
    files.add([file('ok', 'a.txt')]);
    uploads[0](info('a.txt'));
    await vi.waitFor(() => expect(files.ready).toBe(true));
    // The question waits (the chosen conversation is read) while the visitor adds another file.
    files.add([file('ok', 'b.txt')]);
    expect(files.take()).toEqual([info('a.txt')]);
    expect(files.files.map((f) => [f.name, f.status])).toEqual([['b.txt', 'uploading']]);
    uploads[1](info('b.txt'));
    await vi.waitFor(() => expect(files.ready).toBe(true));
    expect(files.take()).toEqual([info('b.txt')]);
  });
});
