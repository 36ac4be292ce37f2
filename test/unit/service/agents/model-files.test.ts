/** The model agent with a question's files, against a scripted OpenAI-compatible server: the request's parts, their budgets, and what the visitor is told. */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileInfo } from '../../../../contract/types.js';
import { loadDocsFolder, OpenAiAgent, type OpenAiAgentOptions } from '../../../../service/node.js';
import { inflatesWithin, MAX_PDF_INFLATED_BYTES } from '../../../../service/kernel/pdf.js';
import { lockedPdf, pdfWithPages, pngHeader, uploadRequest } from '../../../fixtures/files.js';
import { chatRecords, makeService, textOf } from '../../../fixtures/service.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures');

type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
interface Request {
  bytes: number;
  messages: { role: string; content: string | Part[] | null }[];
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A Chat Completions endpoint that keeps each request (and its size) and answers with a recorded stream. */
async function scriptedModel() {
  const requests: Request[] = [];
  const stream = await readFile(join(FIXTURES, 'openai', 'answer.sse'), 'utf8');
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    requests.push({ bytes: raw.length, messages: JSON.parse(raw.toString('utf8')).messages });
    res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

async function setUp(options: Partial<OpenAiAgentOptions> = {}) {
  const model = await scriptedModel();
  const docs = await loadDocsFolder(join(FIXTURES, 'docs'), 'https://example.test/docs');
  const agent = new OpenAiAgent({
    baseUrl: model.baseUrl,
    model: 'gpt-4o-mini',
    docs,
    maxTries: 1,
    ...options,
  });
  const ctx = makeService({ agent });
  const token = await ctx.session('alice');
  const upload = async (bytes: Uint8Array, name: string) =>
    ((await (await ctx.service.handle(uploadRequest(token, bytes, name))).json()) as FileInfo).file_id;
  const ask = (message: string, attachments: string[], threadId: string | null = null) =>
    chatRecords(ctx, token, { message, attachments, thread_id: threadId });
  return { model, upload, ask };
}

const lastUser = (request: Request) => request.messages.filter((m) => m.role === 'user').at(-1)!.content;
const text = (value: string) => new TextEncoder().encode(value);

describe('OpenAiAgent with files', () => {
  it('sends an image as an image_url data URL and text and PDF files as fenced text, in the question alone', async () => {
    const { model, upload, ask } = await setUp({ vision: true });
    const png = pngHeader(640, 480);
    const ids = [
      await upload(png, 'error.png'),
      await upload(text('2026-11-28 ERROR Token refresh failed: 401\n```weird```'), 'app.log'),
      await upload(pdfWithPages(['Installation guide', 'Set the session endpoint']), 'guide.pdf'),
    ];
    const { records } = await ask('Why does this fail?', ids);
    expect(records.at(-1)?.type).toBe('identifiers');
    const content = lastUser(model.requests[0]) as Part[];
    expect(content.map((p) => p.type)).toEqual(['text', 'image_url']);
    const words = (content[0] as { text: string }).text;
    expect(words).toMatch(/^Why does this fail\?\n\n# Files the visitor attached/);
    expect(words).toContain('Image `error.png`: shown below.');
    // The log in a fence longer than its own backticks.
    expect(words).toContain('````\n2026-11-28 ERROR Token refresh failed: 401\n```weird```\n````');
    expect(words).toMatch(
      /File `guide.pdf` \(PDF, \d+ bytes\):\n```\nInstallation guide\n\nSet the session endpoint\n```/,
    );
    const url = (content[1] as { image_url: { url: string } }).image_url.url;
    expect(url).toBe(`data:image/png;base64,${Buffer.from(png).toString('base64')}`);
    // The request is the prompt, the docs and these files: nothing else grew it.
    expect(model.requests[0].bytes).toBeLessThan(16_000);
  });

  it('without vision, tells the model and the visitor that the image was not seen, and sends no image', async () => {
    const { model, upload, ask } = await setUp();
    const { records } = await ask('What does this show?', [await upload(pngHeader(), 'screen shot.png')]);
    const content = lastUser(model.requests[0]);
    expect(typeof content).toBe('string');
    expect(content).toContain('Image `screen shot.png`: attached, but you cannot see images here.');
    expect(textOf(records)).toMatch(
      /^_I cannot see images here, so I did not look at `screen shot.png`._\n\nSet /,
    );
  });

  it('keeps text files within the token budget, cut at the end and marked, and the request with them', async () => {
    const { model, upload, ask } = await setUp({ fileTokens: 1_000 });
    const big = 'line of a long log\n'.repeat(50_000);
    await ask('Look at this', [
      await upload(text(big), 'huge.log'),
      await upload(text('second file'), 'b.txt'),
    ]);
    const content = lastUser(model.requests[0]) as string;
    expect(content).toContain('File `huge.log` (text, 950000 bytes), cut to fit:');
    expect(content).toContain('… (cut here: the rest did not fit)');
    expect(content).toContain('File `b.txt` (text, 11 bytes): left out, the files before it took the room.');
    // About 1,000 tokens of ASCII are 4,000 characters: the 950 kB log did not go.
    expect(model.requests[0].bytes).toBeLessThan(12_000);
  });

  it('reads a PDF up to the page limit and says how many pages it has', async () => {
    const { model, upload, ask } = await setUp({ pdfPages: 3 });
    const pages = Array.from({ length: 40 }, (_, i) => `Page number ${i + 1}`);
    await ask('Summarize', [await upload(pdfWithPages(pages), 'manual.pdf')]);
    const content = lastUser(model.requests[0]) as string;
    expect(content).toContain(', its first 3 of 40 pages:');
    expect(content).toContain('Page number 3');
    expect(content).not.toContain('Page number 4');
  });

  it('sends a file with its own question only: a later question names it and sends nothing of it', async () => {
    const { model, upload, ask } = await setUp({ vision: true });
    const first = await ask('What is this?', [
      await upload(pngHeader(), 'a.png'),
      await upload(text('SECRET LOG'), 'b.log'),
    ]);
    const threadId = first.records[0].content.thread_id as string;
    await ask('And then?', [], threadId);
    const later = model.requests[1];
    expect(lastUser(later)).toBe('And then?');
    const serialized = JSON.stringify(later.messages);
    expect(serialized).not.toContain('SECRET LOG');
    expect(serialized).not.toContain('data:image');
    expect(serialized).toContain('(Files attached to this question, not shown again: a.png, b.log)');
  });

  it('reads a PDF of 5,000 pages only up to the default page limit (30)', async () => {
    const { model, upload, ask } = await setUp();
    const pages = Array.from({ length: 5_000 }, (_, i) => `Page number ${i + 1}`);
    await ask('Summarize', [await upload(pdfWithPages(pages), 'huge.pdf')]);
    const content = lastUser(model.requests[0]) as string;
    expect(content).toContain(', its first 30 of 5000 pages:');
    expect(content).toContain('Page number 30\n');
    expect(content).not.toContain('Page number 31');
  });

  it('tells the model an encrypted PDF could not be read for that, not that it is damaged', async () => {
    const { model, upload, ask } = await setUp();
    await ask('What is in it?', [await upload(lockedPdf(), 'locked.pdf')]);
    expect(lastUser(model.requests[0])).toContain(
      `File \`locked.pdf\` (PDF, ${lockedPdf().length} bytes): it is encrypted (a password or permissions), so its text could not be read.`,
    );
  });

  it('does not read a PDF whose streams would inflate past the bound (a zip bomb in PDF clothes)', async () => {
    const { model, upload, ask } = await setUp();
    // One page whose content stream, 64 KB deflated, inflates to 64 MB and a line of text:
    // pdf.js would hold it whole before any page limit applies.
    const content = Buffer.concat([
      Buffer.alloc(MAX_PDF_INFLATED_BYTES, 0x20),
      Buffer.from('BT /F1 12 Tf 72 720 Td (Inflated) Tj ET'),
    ]);
    const stream = deflateSync(content, { level: 9 });
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>',
    ].map((body) => Buffer.from(body, 'latin1'));
    objects.push(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
        stream,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
    const offsets: number[] = [];
    let length = parts[0].length;
    objects.forEach((body, i) => {
      offsets.push(length);
      const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
      parts.push(object);
      length += object.length;
    });
    const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    parts.push(
      Buffer.from(
        `${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
      ),
    );
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBeLessThan(100_000);
    await ask('What is in it?', [await upload(new Uint8Array(bytes), 'bomb.pdf')]);
    expect(lastUser(model.requests[0])).toContain('File `bomb.pdf` (PDF, ');
    expect(lastUser(model.requests[0])).toContain('it could not be read as a PDF.');
  });

  it('counts every compressed stream toward the bound, images apart, and stops at it', async () => {
    const stream = (dictionary: string, inflated: number) =>
      Buffer.concat([
        Buffer.from(`1 0 obj\n<< ${dictionary} >>\nstream\r\n`, 'latin1'),
        deflateSync(Buffer.alloc(inflated, 0x41)),
        Buffer.from('\nendstream\nendobj\n'),
      ]);
    const pdf = (...streams: Buffer[]) =>
      new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), ...streams]));
    const text = stream('/Filter /FlateDecode', 600);
    const image = stream('/Subtype /Image /Filter /FlateDecode', 1_000);
    expect(await inflatesWithin(pdf(text, text), 1_200)).toBe(true);
    expect(await inflatesWithin(pdf(text, text, text), 1_200)).toBe(false);
    // Reading text decodes no image, so images count apart: each within the bound, together within 8 times it.
    expect(await inflatesWithin(pdf(text, text, image, image), 1_200)).toBe(true);
    expect(
      await inflatesWithin(pdf(text, stream('/Subtype /Image /Filter /FlateDecode', 5_000)), 1_200),
    ).toBe(false);
    expect(await inflatesWithin(pdf(...Array<Buffer>(10).fill(image)), 1_200)).toBe(false);
    // A real PDF of this suite's own making passes with room to spare.
    expect(await inflatesWithin(pdfWithPages(['One', 'Two']))).toBe(true);
  });
});
