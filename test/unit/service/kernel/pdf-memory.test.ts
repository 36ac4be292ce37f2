/**
 * A PDF whose data grows outside pdf.js's heap: a form XObject written as a JPEG, which pdf.js
 * decodes into pixels while it extracts the page's text. A few kilobytes declare gigabytes; the
 * thread's heap cap does not see them (ArrayBuffers), nor does the guard (no deflate to count).
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflatesWithin, readPdf } from '../../../../service/kernel/pdf.js';
import { pdfFile } from '../../../fixtures/files.js';

const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const join = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));

/** A baseline greyscale JPEG of `side` by `side` pixels, every block empty: its scan is zeros. */
function jpeg(side: number): Uint8Array {
  const segment = (marker: number, body: number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  // One Huffman code of one bit, for the symbol 0 (DC: no difference; AC: end of block).
  const table = (id: number) => [id, 1, ...Array<number>(15).fill(0), 0];
  const blocks = Math.ceil(side / 8) ** 2;
  return Uint8Array.from([
    0xff,
    0xd8,
    ...segment(0xdb, [0, ...Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, side >> 8, side & 0xff, side >> 8, side & 0xff, 1, 1, 0x11, 0]),
    ...segment(0xc4, table(0x00)),
    ...segment(0xc4, table(0x10)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    // Two bits a block, zeros enough for every block: deflated, next to nothing.
    ...new Uint8Array(Math.ceil(blocks / 4) + 16),
    0xff,
    0xd9,
  ]);
}

/** A page whose words are followed by a form XObject whose stream is a JPEG of `side` pixels square. */
function jpegFormPdf(side: number): Uint8Array {
  const image = new Uint8Array(deflateSync(jpeg(side)));
  const text = bytes('BT /F1 12 Tf 72 700 Td (pixels) Tj ET /X1 Do\n');
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /XObject << /X1 4 0 R >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>',
    join(
      bytes(
        `<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Length ${image.length} /Filter [/FlateDecode /DCTDecode] >>\nstream\n`,
      ),
      image,
      bytes('\nendstream'),
    ),
    join(bytes(`<< /Length ${text.length} >>\nstream\n`), text, bytes('endstream')),
  ]);
}

describe("a PDF read on pdf.js's thread, against memory outside its heap", () => {
  it('stops the read whose images grow the memory past its bound, and reads an honest file after', async () => {
    const bound = 150_000_000;
    // 20,000 pixels square: 400 MB of pixels, and more on the way (before: 830 MB more RSS, read whole).
    const pdf = jpegFormPdf(20_000);
    expect(pdf.length).toBeLessThan(3_000);
    expect(await inflatesWithin(pdf)).toBe(true);
    const from = process.memoryUsage.rss();
    let peak = from;
    const sampling = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    const read = await readPdf(pdf, { memoryBytes: bound });
    clearInterval(sampling);
    expect(read).toBe('heavy');
    // Within its bound, and what one look at the memory lets pass.
    expect(peak - from).toBeLessThan(bound + 150_000_000);
    // The same file, its JPEG small: read, its words in order.
    const small = await readPdf(jpegFormPdf(64), { memoryBytes: bound });
    expect(typeof small === 'string' ? small : small.pages[0].lines.map((line) => line.text)).toEqual([
      'pixels',
    ]);
  }, 60_000);
});
