/**
 * A PDF built to make pdf.js inflate more than the bound while the check before it counts less:
 * every way pdf.js finds and decodes a stream that the check must find and count as well.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflatesWithin } from '../../../../service/kernel/pdf.js';
import { GUARD_WORK, MAX_DEPTH } from '../../../../service/kernel/pdf-streams.js';
import { pdfFile } from '../../../fixtures/files.js';

const LIMIT = 1_000_000;
const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The page's words, then twice LIMIT of spaces: deflated to a few kilobytes. */
const content = (text: string) =>
  new Uint8Array(
    deflateSync(
      Buffer.concat([Buffer.from(`BT /F1 12 Tf 72 700 Td (${text}) Tj ET`), Buffer.alloc(2 * LIMIT, 32)]),
    ),
  );

/** A one-page PDF whose page content is object 4, written as `stream` gives it. */
const onePage = (stream: Uint8Array) =>
  pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);

/**
 * A one-page PDF whose page content (object 5) is written inside an object stream (object 4,
 * its data `encode`d and named `filter`), found through a cross-reference stream.
 */
function objectStreamPdf(
  inner: Uint8Array,
  filter = '/FlateDecode',
  encode = (data: Uint8Array) => new Uint8Array(deflateSync(data)),
): Uint8Array {
  const parts: Uint8Array[] = [bytes('%PDF-1.5\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  const add = (number: number, body: Uint8Array) => {
    offsets[number] = length;
    const part = join(bytes(`${number} 0 obj\n`), body, bytes('\nendobj\n'));
    parts.push(part);
    length += part.length;
  };
  add(1, bytes('<< /Type /Catalog /Pages 2 0 R >>'));
  add(2, bytes('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'));
  add(
    3,
    bytes(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>',
    ),
  );
  const header = bytes('5 0 ');
  const packed = encode(join(header, inner));
  add(
    4,
    join(
      bytes(
        `<< /Type /ObjStm /N 1 /First ${header.length} /Length ${packed.length} /Filter ${filter} >>\nstream\n`,
      ),
      packed,
      bytes('\nendstream'),
    ),
  );
  // Each object's row: 1 (in the file, at an offset) or 2 (in object stream 4, its first).
  const row = (type: number, field: number, index: number) => [
    type,
    ...[24, 16, 8, 0].map((shift) => (field >>> shift) & 0xff),
    index >> 8,
    index & 0xff,
  ];
  const xrefAt = length;
  const table = Uint8Array.from([
    ...row(0, 0, 65535),
    ...[1, 2, 3, 4].flatMap((n) => row(1, offsets[n], 0)),
    ...row(2, 4, 0),
    ...row(1, xrefAt, 0),
  ]);
  add(
    6,
    join(
      bytes(`<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length ${table.length} >>\nstream\n`),
      table,
      bytes('\nendstream'),
    ),
  );
  parts.push(bytes(`startxref\n${xrefAt}\n%%EOF\n`));
  return join(...parts);
}

const streamObject = (dictionary: string, data: Uint8Array, eol = '\n') =>
  join(bytes(`${dictionary}\nstream${eol}`), data, bytes('\nendstream'));

/** What pdf.js itself makes of the file, unguarded (it decodes the bomb: its words come out), and the guard's word. */
async function probe(pdf: Uint8Array, words: string) {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const { text } = await extractText(await getDocumentProxy(pdf.slice(), { verbosity: 0 }), {
    mergePages: true,
  });
  expect(text).toContain(words);
  return { within: await inflatesWithin(pdf, LIMIT) };
}

describe('inflatesWithin against what pdf.js decodes', () => {
  it('counts a plain FlateDecode content stream (the case it was made for)', async () => {
    const data = content('plain');
    const pdf = onePage(streamObject(`<< /Length ${data.length} /Filter /FlateDecode >>`, data));
    expect(await inflatesWithin(pdf, LIMIT)).toBe(false);
  });

  it('counts a stream whose keyword ends its line with a lone CR', async () => {
    const data = content('lonecr');
    const pdf = onePage(streamObject(`<< /Length ${data.length} /Filter /FlateDecode >>`, data, '\r'));
    expect(await probe(pdf, 'lonecr')).toMatchObject({ within: false });
  });

  it('counts a stream whose filter name is written with #xx escapes', async () => {
    const data = content('escaped');
    const pdf = onePage(streamObject(`<< /Length ${data.length} /Filter /Flate#44ecode >>`, data));
    expect(await probe(pdf, 'escaped')).toMatchObject({ within: false });
  });

  it('counts a content stream that calls itself an image', async () => {
    const data = content('image');
    const pdf = onePage(
      streamObject(`<< /Length ${data.length} /Filter /FlateDecode /Subtype /Image >>`, data),
    );
    expect(await probe(pdf, 'image')).toMatchObject({ within: false });
  });

  it('does not read an encrypted PDF, whose streams it cannot count, even one that opens without a password', async () => {
    // The standard security handler, RC4 40-bit (revision 2), with an empty user password.
    const rc4 = (key: Uint8Array, data: Uint8Array) => {
      const s = Array.from({ length: 256 }, (_, i) => i);
      for (let i = 0, j = 0; i < 256; i++) {
        j = (j + s[i] + key[i % key.length]) & 255;
        [s[i], s[j]] = [s[j], s[i]];
      }
      const out = new Uint8Array(data.length);
      for (let n = 0, i = 0, j = 0; n < data.length; n++) {
        i = (i + 1) & 255;
        j = (j + s[i]) & 255;
        [s[i], s[j]] = [s[j], s[i]];
        out[n] = data[n] ^ s[(s[i] + s[j]) & 255];
      }
      return out;
    };
    const md5 = (...parts: Uint8Array[]) =>
      new Uint8Array(
        createHash('md5')
          .update(join(...parts))
          .digest(),
      );
    const padding = Uint8Array.from(
      Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex'),
    );
    const owner = new Uint8Array(32).fill(0xab);
    const id = new Uint8Array(16).fill(1);
    const key = md5(padding, owner, Uint8Array.of(0xfc, 0xff, 0xff, 0xff), id).subarray(0, 5);
    const user = rc4(key, padding);
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const data = rc4(md5(key, Uint8Array.of(4, 0, 0, 0, 0)).subarray(0, 10), content('secret'));
    const pdf = pdfFile(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        streamObject(`<< /Length ${data.length} /Filter /FlateDecode >>`, data),
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        `<< /Filter /Standard /V 1 /R 2 /O <${hex(owner)}> /U <${hex(user)}> /P -4 >>`,
      ],
      `/Encrypt 6 0 R /ID [<${hex(id)}><${hex(id)}>] `,
    );
    expect(await probe(pdf, 'secret')).toMatchObject({ within: false });
  });

  it("counts a stream to its Length's end when its data holds the word endstream", async () => {
    // A zlib stream whose first (stored) block is the word itself, then the deflated page.
    const word = bytes('\nendstream\n');
    const rest = new Uint8Array(
      deflateRawSync(
        Buffer.concat([Buffer.from('BT /F1 12 Tf 72 700 Td (worded) Tj ET'), Buffer.alloc(2 * LIMIT, 32)]),
      ),
    );
    const data = join(Uint8Array.of(0x78, 0x01, 0x00, word.length, 0, ~word.length & 255, 0xff), word, rest);
    const pdf = onePage(streamObject(`<< /Length ${data.length} /Filter /FlateDecode >>`, data));
    expect(await probe(pdf, 'worded')).toMatchObject({ within: false });
  });

  it('counts deflate written in ASCII hex before it', async () => {
    const data = bytes(`${Buffer.from(content('hexed')).toString('hex')}>`);
    const pdf = onePage(
      streamObject(`<< /Length ${data.length} /Filter [/ASCIIHexDecode /FlateDecode] >>`, data),
    );
    expect(await probe(pdf, 'hexed')).toMatchObject({ within: false });
  });

  it('does not read a PDF naming a filter it cannot count, or giving one by reference', async () => {
    const data = content('named');
    const lzw = onePage(streamObject(`<< /Length ${data.length} /Filter /LZW#44ecode >>`, data));
    expect(await inflatesWithin(lzw, LIMIT)).toBe(false);
    const referenced = onePage(streamObject(`<< /Length ${data.length} /Filter 9 0 R >>`, data));
    expect(await inflatesWithin(referenced, LIMIT)).toBe(false);
  });

  it('reads an ordinary PDF whose images together pass the bound, each within it', async () => {
    const picture = streamObject(
      `<< /Type /XObject /Subtype /Image /Width 1000 /Height 900 /BitsPerComponent 8 /ColorSpace /DeviceGray /Length 0 /Filter /FlateDecode >>`,
      new Uint8Array(deflateSync(Buffer.alloc(900_000, 7))),
    );
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      streamObject('<< /Length 35 >>', bytes('BT /F1 12 Tf 72 700 Td (pictures) Tj ET'.slice(0, 35))),
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      picture,
      picture,
      picture,
    ];
    // Three images of 900 KB: 2.7 MB together, past the bound of 1 MB, each within it.
    expect(await inflatesWithin(pdfFile(objects), LIMIT)).toBe(true);
  });

  it('counts a stream deflated twice over (a filter chain), whose first inflation is small', async () => {
    const twice = new Uint8Array(deflateSync(content('twice')));
    const pdf = onePage(
      streamObject(`<< /Length ${twice.length} /Filter [/FlateDecode /FlateDecode] >>`, twice),
    );
    expect(await probe(pdf, 'twice')).toMatchObject({ within: false });
  });

  it('reads a stream deflated as many times over as MAX_DEPTH, and refuses one deflated once more', async () => {
    const words = bytes('BT /F1 12 Tf 72 700 Td (layers) Tj ET');
    const layered = (times: number) => {
      let data = words;
      for (let i = 0; i < times; i++) data = new Uint8Array(deflateSync(data));
      const filters = Array.from({ length: times }, () => '/FlateDecode').join(' ');
      return onePage(streamObject(`<< /Length ${data.length} /Filter [${filters}] >>`, data));
    };
    expect(await inflatesWithin(layered(MAX_DEPTH), LIMIT)).toBe(true);
    expect(await inflatesWithin(layered(MAX_DEPTH + 1), LIMIT)).toBe(false);
  });

  it('counts a stream written inside an object stream, which pdf.js reads as any other', async () => {
    const data = content('deep');
    const inner = streamObject(`<< /Length ${data.length} /Filter /FlateDecode >>`, data);
    expect(await probe(objectStreamPdf(inner), 'deep')).toMatchObject({ within: false });
    // Hex-encoded, not deflated: the stream's own bytes never show the inner one's dictionary.
    const hexed = objectStreamPdf(inner, '/ASCIIHexDecode', (b) =>
      bytes(`${Buffer.from(b).toString('hex')}>`),
    );
    expect(await probe(hexed, 'deep')).toMatchObject({ within: false });
    // Named in there, a filter it cannot count.
    const lzw = streamObject(`<< /Length ${data.length} /Filter /LZWDecode >>`, data);
    expect(await inflatesWithin(objectStreamPdf(lzw), LIMIT)).toBe(false);
  });

  it("stops at its own work's bounds: a file planting a great many streams is refused, not counted for minutes", async () => {
    const planted = (unit: string, times: number) =>
      bytes(`%PDF-1.4\n1 0 obj\n<< /Length 9 >>\n${unit.repeat(times)}\nendstream\nendobj\n`);
    // An empty deflate stream, each one started and ended: past GUARD_WORK.inflations.
    const empty = 'stream\n\x78\x9c\x03\x00\x00\x00\x00\x01\nendstream\n';
    expect(await inflatesWithin(planted(empty, GUARD_WORK.inflations + 100))).toBe(false);
    expect(await inflatesWithin(planted(empty, 1_000))).toBe(true);
    // A zlib header before the rest of the file, again and again: each would inflate to the end.
    expect(await inflatesWithin(planted('stream\n\x78\x9c', 60_000))).toBe(false);
    // Bare words: past GUARD_WORK.keywords.
    expect(await inflatesWithin(planted('stream\n', GUARD_WORK.keywords + 1))).toBe(false);
  }, 30_000);
});
