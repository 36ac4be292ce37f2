/** Files (§11): uploads typed from their bytes within limits read as they stream, downloads to their uploader only, questions that carry them. */
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, UNUSED_FILE_TTL_MS } from '../../../../contract/limits.js';
import type { FileInfo } from '../../../../contract/types.js';
import {
  gifHeader,
  jpegHeader,
  pdfBytes,
  pngHeader,
  uploadRequest,
  webpHeader,
} from '../../../fixtures/files.js';
import {
  AGENT,
  PROJECT,
  chatRecords,
  errorBody,
  makeService,
  scriptedAgent,
  textOf,
  threadJson,
} from '../../../fixtures/service.js';

type Ctx = ReturnType<typeof makeService>;
const upload = (
  ctx: Ctx,
  token: string,
  bytes: BlobPart | Uint8Array,
  name: string,
  options?: Parameters<typeof uploadRequest>[3],
) => ctx.service.handle(uploadRequest(token, bytes, name, options));
const uploaded = async (ctx: Ctx, token: string, bytes: BlobPart | Uint8Array, name: string) => {
  const response = await upload(ctx, token, bytes, name);
  expect(response.status).toBe(201);
  return (await response.json()) as FileInfo;
};
const download = (ctx: Ctx, token: string, id: string) => ctx.call('GET', `${AGENT}/files/${id}/`, { token });
const text = (value: string) => new TextEncoder().encode(value);

describe('uploads (§11)', () => {
  it('types each kind from its bytes, whatever the name and declared type say', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const cases: [Uint8Array, string, string, string][] = [
      [pngHeader(), 'shot.txt', 'image', 'image/png'],
      [jpegHeader(), 'photo', 'image', 'image/jpeg'],
      [gifHeader(), 'a.gif', 'image', 'image/gif'],
      [webpHeader(), 'a.webp', 'image', 'image/webp'],
      [pdfBytes(), 'manual.png', 'pdf', 'application/pdf'],
      [text('name,count\nsocks,3\n'), 'cart.csv', 'text', 'text/plain; charset=utf-8'],
      [text('{"theme": "dark"} — ünïcödé 🎉'), 'config.json', 'text', 'text/plain; charset=utf-8'],
    ];
    for (const [bytes, name, kind, type] of cases) {
      const info = await uploaded(ctx, token, bytes, name);
      expect(info, name).toMatchObject({ name, kind, content_type: type, size: bytes.length });
      expect(info.file_id).toMatch(/^file_[0-9a-f]{32}$/);
    }
  });

  it.each([
    ['SVG', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'cat.png'],
    ['HTML', '\n  <!DOCTYPE html><html><body>hi</body></html>', 'notes.txt'],
    ['HTML without a doctype', '<script>alert(1)</script>', 'log.txt'],
    ['XML', '<?xml version="1.0"?><a/>', 'data.csv'],
    ['an executable', 'MZ\x90\x00\x03\x00\x00\x00\x04\x00', 'tool.txt'],
    ['an ELF binary', '\x7fELF\x02\x01\x01\x00', 'readme.md'],
    ['a zip archive', 'PK\x03\x04\x14\x00\x00\x00', 'logs.txt'],
    // Compressed data is never inflated: a gzip (a decompression bomb, say) is no text.
    ['a gzip stream', '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03', 'access.log.gz'],
  ])('refuses %s whatever its name (415, with the allowed types)', async (_, content, name) => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const bytes = Uint8Array.from(content, (c) => c.charCodeAt(0));
    const response = await upload(ctx, token, bytes, name, { type: 'image/png' });
    expect(response.status).toBe(415);
    const body = await errorBody(response);
    expect(body.code).toBe('unsupported_file_type');
    expect(body.detail).toMatch(/PNG, JPEG, WebP, GIF.*PDF/);
  });

  it('refuses text that is not UTF-8 or holds a NUL past its first bytes', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const latin1 = new Uint8Array([...text('x'.repeat(100)), 0xe9, 0x74, 0xe9]);
    const nul = new Uint8Array([...text('y'.repeat(100)), 0, 65]);
    for (const bytes of [latin1, nul]) expect((await upload(ctx, token, bytes, 'a.txt')).status).toBe(415);
  });

  it('refuses a damaged image (415) and one past the pixel bounds, read from its header (413)', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const damaged = pngHeader().slice(0, 14);
    expect((await upload(ctx, token, damaged, 'a.png')).status).toBe(415);
    for (const bytes of [
      pngHeader(20_000, 10),
      jpegHeader(8000, 8000),
      gifHeader(1, 1),
      webpHeader(9000, 9000),
    ]) {
      const response = await upload(ctx, token, bytes, 'big');
      // The 1×1 GIF is fine; the others pass a side or 40 megapixels.
      expect(response.status).toBe(bytes.length === 13 ? 201 : 413);
    }
  });

  it('measures a JPEG by the frame a decoder reads, past markers that have no length', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const frame = (width: number, height: number) => [
      0xff,
      0xc0,
      0,
      17,
      8,
      height >> 8,
      height & 255,
      width >> 8,
      width & 255,
      3,
    ];
    // A restart marker (no length) before a 20,000 × 20,000 frame: read as a length, its next
    // bytes (the frame's marker, FF C0) jumped 65,474 bytes on, to a 100 × 100 frame put there.
    const bomb = new Uint8Array(65_476 + 64);
    bomb.set([0xff, 0xd8, 0xff, 0xd0, ...frame(20_000, 20_000)]);
    bomb.set(frame(100, 100), 65_476);
    const response = await upload(ctx, token, bomb, 'small.jpg');
    expect(response.status).toBe(413);
    expect((await errorBody(response)).detail).toMatch(/20000 × 20000 pixels/);
    // The same markers before a frame of sane size: the image is taken, not called damaged.
    const fine = new Uint8Array([
      0xff,
      0xd8,
      0xff,
      0x01,
      0xff,
      0xd7,
      ...frame(640, 480),
      ...new Uint8Array(40),
    ]);
    expect((await uploaded(ctx, token, fine, 'fine.jpg')).kind).toBe('image');
    // Scan data before any frame is damaged.
    const scanFirst = new Uint8Array([
      0xff,
      0xd8,
      0xff,
      0xda,
      0,
      8,
      ...frame(640, 480),
      ...new Uint8Array(40),
    ]);
    expect((await upload(ctx, token, scanFirst, 'scan.jpg')).status).toBe(415);
  });

  it('measures a GIF by its largest frame, which decoders grow its screen to', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const le = (n: number) => [n & 255, n >> 8];
    // A frame: its descriptor at (x, y), no color table, LZW code size 2, one data block, its end.
    const frame = (x: number, y: number, w: number, h: number) => [
      0x2c,
      ...le(x),
      ...le(y),
      ...le(w),
      ...le(h),
      0,
      2,
      2,
      0x44,
      0x01,
      0,
    ];
    const gif = (...blocks: number[][]) =>
      // A 1 × 1 screen with a global color table of 2 colors, the blocks, the trailer.
      new Uint8Array([
        ...text('GIF89a'),
        ...le(1),
        ...le(1),
        0x80,
        0,
        0,
        0,
        0,
        0,
        255,
        255,
        255,
        ...blocks.flat(),
        0x3b,
      ]);
    const delay = [0x21, 0xf9, 4, 0, 10, 0, 0, 0];
    for (const [what, bytes] of [
      // Chromium decoded this at 20,000 × 20,000 when the service read 1 × 1.
      ['a first frame past the screen', gif(frame(0, 0, 20_000, 20_000))],
      [
        'a later frame, after an extension and a stray byte',
        gif(frame(0, 0, 1, 1), delay, [0x99], frame(9_000, 0, 2_000, 1)),
      ],
    ] as const) {
      const response = await upload(ctx, token, bytes, 'a.gif');
      expect([what, response.status]).toEqual([what, 413]);
    }
    const animated = gif(frame(0, 0, 1, 1), delay, frame(0, 0, 640, 480), delay, frame(100, 100, 540, 380));
    expect((await uploaded(ctx, token, animated, 'fine.gif')).kind).toBe('image');
  });

  it("stops reading a file the moment it passes its kind's limit, never holding the rest", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const boundary = 'b0undary';
    const chunk = text('a'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (c) =>
        c.enqueue(
          text(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.log"\r\n\r\n`),
        ),
      pull: (c) => {
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const response = await ctx.service.handle(
      new Request(`${AGENT}/files/?integration_id=int_demo`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect((await errorBody(response)).code).toBe('file_too_large');
    expect(response.headers.get('Connection')).toBe('close');
    // Text may take 1 MB: the read stopped within a few chunks of it, of an endless body.
    expect(sent).toBeGreaterThan(MAX_FILE_BYTES.text);
    expect(sent).toBeLessThan(MAX_FILE_BYTES.text + 4 * chunk.length);
  });

  it('refuses a declared length far past every limit before reading anything', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const request = uploadRequest(token, pngHeader(), 'a.png');
    const headers = new Headers(request.headers);
    headers.set('Content-Length', String(MAX_FILE_BYTES.pdf * 2));
    const response = await ctx.service.handle(new Request(request, { headers }));
    expect(response.status).toBe(413);
  });

  it('refuses what is not one part named "file", an empty file, and a missing or unknown integration (400)', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const json = await ctx.call('POST', `${AGENT}/files/?integration_id=int_demo`, {
      token,
      body: { file: 'x' },
    });
    expect(json.status).toBe(400);
    const form = new FormData();
    form.append('other', new Blob([pngHeader()]), 'a.png');
    const wrongName = await ctx.service.handle(
      new Request(`${AGENT}/files/?integration_id=int_demo`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: form,
      }),
    );
    expect(wrongName.status).toBe(400);
    const two = new FormData();
    two.append('file', new Blob([text('one')]), 'a.txt');
    two.append('file', new Blob([text('two')]), 'b.txt');
    const twoParts = await ctx.service.handle(
      new Request(`${AGENT}/files/?integration_id=int_demo`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: two,
      }),
    );
    expect(twoParts.status).toBe(400);
    expect((await upload(ctx, token, new Uint8Array(0), 'empty.txt')).status).toBe(400);
    expect((await upload(ctx, token, text('hi'), 'a.txt', { integration: 'int_nope' })).status).toBe(400);
    expect(
      (await upload(ctx, await ctx.session('alice'), text('hi'), 'a.txt', { integration: '' })).status,
    ).toBe(400);
  });

  it("follows the integration's settings: kinds, sizes per kind, and none at all", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const files = ctx.service.storage.files;
    await files.putFileSettings(PROJECT.id, 'int_demo', {
      kinds: ['image', 'text'],
      maxBytes: { image: 100, text: 10, pdf: 0 },
      perQuestion: 2,
    });
    expect((await upload(ctx, token, pdfBytes(), 'a.pdf')).status).toBe(415);
    expect((await upload(ctx, token, text('12345678901'), 'a.txt')).status).toBe(413);
    expect((await upload(ctx, token, text('1234567890'), 'a.txt')).status).toBe(201);
    expect((await upload(ctx, token, pngHeader(), 'a.png')).status).toBe(201);
    // The other integration keeps the defaults.
    expect((await upload(ctx, token, pdfBytes(), 'a.pdf', { integration: 'int_other' })).status).toBe(201);
    await files.putFileSettings(PROJECT.id, 'int_demo', {
      kinds: ['image', 'text'],
      maxBytes: { image: 100, text: 10, pdf: 0 },
      perQuestion: 0,
    });
    const off = await upload(ctx, token, text('hi'), 'a.txt');
    expect(off.status).toBe(415);
    expect((await errorBody(off)).detail).toBe('This site takes no files.');
  });

  it('keeps names as text: no path, no control or direction characters', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const info = await uploaded(ctx, token, text('x'), '../../etc/pass\u202Ewd\u0000.txt');
    expect(info.name).toBe('passwd.txt');
    expect((await uploaded(ctx, token, text('x'), '...')).name).toBe('file');
    expect((await uploaded(ctx, token, text('x'), `${'é'.repeat(300)}.log`)).name).toMatch(/^é{195}….log$/);
  });

  it("holds each visitor's unused files within a quota (429), which a question frees", async () => {
    const ctx = makeService({ unusedFileQuota: { uploaderFiles: 2 } });
    const alice = await ctx.session('alice');
    const a = await uploaded(ctx, alice, text('a'), 'a.txt');
    await uploaded(ctx, alice, text('b'), 'b.txt');
    const third = await upload(ctx, alice, text('c'), 'c.txt');
    expect(third.status).toBe(429);
    expect(third.headers.get('Retry-After')).toBe('3600');
    // Another visitor has a quota of their own.
    expect((await upload(ctx, await ctx.session('bob'), text('c'), 'c.txt')).status).toBe(201);
    await chatRecords(ctx, alice, { message: 'About this file', attachments: [a.file_id] });
    expect((await upload(ctx, alice, text('c'), 'c.txt')).status).toBe(201);
  });

  it('counts uploads against the agent rate limit', async () => {
    const ctx = makeService({ rateLimit: { requests: 2, windowMs: 60_000 } });
    const token = await ctx.session('alice');
    expect((await upload(ctx, token, text('a'), 'a.txt')).status).toBe(201);
    expect((await upload(ctx, token, text('b'), 'b.txt')).status).toBe(201);
    const limited = await upload(ctx, token, text('c'), 'c.txt');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBeTruthy();
  });

  it('needs a session (401)', async () => {
    const ctx = makeService();
    expect((await upload(ctx, 'no-such-token', text('a'), 'a.txt')).status).toBe(401);
  });
});

describe('downloads (§11)', () => {
  it('serves the bytes only as an attachment: nosniff, private no-store, a safe name in both forms', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const bytes = text('name;"quoted" % ünï');
    const info = await uploaded(ctx, token, bytes, 'résumé "final";.txt');
    const response = await download(ctx, token, info.file_id);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);
    expect(response.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Cache-Control')).toBe('private, no-store');
    expect(response.headers.get('Content-Disposition')).toBe(
      `attachment; filename="r_sum_ _final__.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%3B.txt`,
    );
    expect(response.headers.get('Content-Security-Policy')).toContain('sandbox');
  });

  it('names a download as its type: text uploaded as a page or a script is saved as .txt, an image as itself', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const cases: [Uint8Array, string, string][] = [
      [text('Pay here <script>steal()</script>'), 'invoice.html', 'invoice.html.txt'],
      [text('alert(document.cookie)'), 'x.svg', 'x.svg.txt'],
      [text('ERROR boom'), 'app.log', 'app.log'],
      [pngHeader(), 'shot.txt', 'shot.txt.png'],
    ];
    for (const [bytes, name, saved] of cases) {
      const info = await uploaded(ctx, token, bytes, name);
      // The name it was sent under is kept and shown; only the download's ends as its type.
      expect(info.name).toBe(name);
      const response = await download(ctx, token, info.file_id);
      expect(response.headers.get('Content-Disposition'), name).toBe(
        `attachment; filename="${saved}"; filename*=UTF-8''${saved}`,
      );
    }
  });

  it("follows the owner rules: the owner's every session, never another owner; a session without owner alone", async () => {
    const ctx = makeService();
    const alice = await ctx.session('alice');
    const info = await uploaded(ctx, alice, pngHeader(), 'a.png');
    expect((await download(ctx, await ctx.session('alice'), info.file_id)).status).toBe(200);
    expect((await download(ctx, await ctx.session('bob'), info.file_id)).status).toBe(404);
    expect((await download(ctx, await ctx.session(), info.file_id)).status).toBe(404);
    const anonymous = await ctx.session();
    const mine = await uploaded(ctx, anonymous, pngHeader(), 'b.png');
    expect((await download(ctx, anonymous, mine.file_id)).status).toBe(200);
    expect((await download(ctx, await ctx.session(), mine.file_id)).status).toBe(404);
    expect((await download(ctx, alice, mine.file_id)).status).toBe(404);
    expect((await download(ctx, alice, 'file_00000000000000000000000000000000')).status).toBe(404);
    expect((await download(ctx, alice, 'not-an-id')).status).toBe(404);
  });
});

describe('questions with files (§4, §11)', () => {
  it("hands the agent the question's files with their bytes, once: a later question does not carry them again", async () => {
    const scripted = scriptedAgent();
    const ctx = makeService({ agent: scripted.agent });
    const token = await ctx.session('alice');
    const log = await uploaded(ctx, token, text('ERROR boom'), 'app.log');
    const shot = await uploaded(ctx, token, pngHeader(), 'shot.png');
    scripted.say('ok');
    scripted.end();
    const first = await chatRecords(ctx, token, {
      message: 'What broke?',
      attachments: [log.file_id, shot.file_id],
    });
    expect(first.response.status).toBe(200);
    const [input] = scripted.inputs();
    expect(input.attachments?.map((a) => [a.name, a.kind, a.size])).toEqual([
      ['app.log', 'text', 10],
      ['shot.png', 'image', pngHeader().length],
    ]);
    expect(new TextDecoder().decode(input.attachments?.[0].bytes)).toBe('ERROR boom');
    const threadId = first.records[0].content.thread_id as string;
    scripted.say('again');
    scripted.end();
    await chatRecords(ctx, token, { message: 'And now?', thread_id: threadId });
    const second = scripted.inputs()[1];
    expect(second.attachments).toBeUndefined();
    // The earlier question is in the history with its files named, not their bytes.
    expect(second.history[0].attachments?.map((a) => a.name)).toEqual(['app.log', 'shot.png']);
  });

  it("lists a question's files in the resumed thread, and takes files alone (the title from their names)", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const shot = await uploaded(ctx, token, pngHeader(), 'error screen.png');
    const { records } = await chatRecords(ctx, token, { message: '', attachments: [shot.file_id] });
    const threadId = records[0].content.thread_id as string;
    expect(textOf(records)).toContain('`error screen.png` (image, 33 B)');
    const thread = await threadJson(ctx, token, threadId);
    expect(thread.title).toBe('error screen.png');
    expect(thread.messages[0].attachments).toEqual([shot]);
    expect(thread.messages[1].attachments).toBeUndefined();
  });

  it("refuses another's file, an unknown one, one of another thread, too many, or a kind no longer allowed (400)", async () => {
    const ctx = makeService();
    const alice = await ctx.session('alice');
    const bobs = await uploaded(ctx, await ctx.session('bob'), text('b'), 'b.txt');
    const mine = await uploaded(ctx, alice, text('a'), 'a.txt');
    const ask = (body: Record<string, unknown>) => chatRecords(ctx, alice, { message: 'q', ...body });
    expect((await ask({ attachments: [bobs.file_id] })).response.status).toBe(400);
    expect((await ask({ attachments: ['file_00000000000000000000000000000000'] })).response.status).toBe(400);
    expect((await ask({ attachments: 'x' })).response.status).toBe(400);
    expect((await ask({ attachments: [mine.file_id, mine.file_id] })).response.status).toBe(400);
    const six = Array.from({ length: 6 }, (_, i) => `file_${String(i).repeat(32)}`);
    expect((await ask({ attachments: six })).response.status).toBe(400);
    const used = await ask({ attachments: [mine.file_id] });
    const threadId = used.records[0].content.thread_id as string;
    // Again in its own thread: fine; in a new one: it belongs to the first.
    expect((await ask({ attachments: [mine.file_id], thread_id: threadId })).response.status).toBe(200);
    const moved = await ask({ attachments: [mine.file_id] });
    expect(moved.response.status).toBe(400);
    expect((await errorBody(moved.response)).detail).toMatch(/another conversation/);
    const other = await uploaded(ctx, alice, text('c'), 'c.txt');
    await ctx.service.storage.files.putFileSettings(PROJECT.id, 'int_demo', {
      kinds: ['image'],
      maxBytes: { ...MAX_FILE_BYTES },
      perQuestion: 1,
    });
    expect((await ask({ attachments: [other.file_id] })).response.status).toBe(400);
    expect((await ask({ message: '', attachments: [] })).response.status).toBe(400);
  });

  it("says a file gone or not this session's is unavailable (400 file_unavailable), as a session without owner that renews meets it", async () => {
    const ctx = makeService();
    const first = await ctx.session();
    const file = await uploaded(ctx, first, text('a'), 'a.txt');
    // The visitor has no owner: the next session (a reload, the hourly renewal) is someone else (§11).
    const next = await ctx.session();
    const refused = await chatRecords(ctx, next, { message: 'q', attachments: [file.file_id] });
    expect(refused.response.status).toBe(400);
    expect(await errorBody(refused.response)).toEqual({
      code: 'file_unavailable',
      detail: 'attachments[0] is not a file this session uploaded (or it expired).',
    });
    const unknown = await chatRecords(ctx, first, {
      message: 'q',
      attachments: [file.file_id, 'file_00000000000000000000000000000000'],
    });
    expect(await errorBody(unknown.response)).toMatchObject({
      code: 'file_unavailable',
      detail: /^attachments\[1\]/,
    });
    // What is wrong with the request itself stays invalid_request.
    const six = Array.from({ length: 6 }, (_, i) => `file_${String(i).repeat(32)}`);
    expect(
      (await errorBody((await chatRecords(ctx, first, { message: 'q', attachments: six })).response)).code,
    ).toBe('invalid_request');
  });

  it('deletes the files of a deleted thread, and files unused for 24 hours', async () => {
    const ctx = makeService();
    let token = await ctx.session('alice');
    const used = await uploaded(ctx, token, text('a'), 'a.txt');
    const unused = await uploaded(ctx, token, text('b'), 'b.txt');
    const { records } = await chatRecords(ctx, token, { message: 'q', attachments: [used.file_id] });
    ctx.clock.advance(UNUSED_FILE_TTL_MS - 1000);
    // Sessions last an hour: the visitor comes back with a new one.
    token = await ctx.session('alice');
    const fresh = await uploaded(ctx, token, text('c'), 'c.txt');
    ctx.clock.advance(2000);
    expect((await ctx.service.maintain()).files).toBe(1);
    expect((await download(ctx, token, unused.file_id)).status).toBe(404);
    expect((await download(ctx, token, used.file_id)).status).toBe(200);
    expect((await download(ctx, token, fresh.file_id)).status).toBe(200);
    const threadId = records[0].content.thread_id as string;
    expect((await ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token })).status).toBe(204);
    expect((await download(ctx, token, used.file_id)).status).toBe(404);
  });
});
