/**
 * The zip-bomb guard before pdf.js reads a PDF (decisions 376, 722). pdf.js holds a decoded
 * stream whole, so what it would inflate is counted first, through `DecompressionStream`, and a
 * file past the bound is not given to it. The count must see every stream pdf.js decodes, so it
 * relies on nothing a stream says of itself that pdf.js does not rely on too: a stream is found
 * as pdf.js finds it (its keyword's line ended by CR, LF or both; its data as long as a `Length`
 * that ends at `endstream`), and every one is tried as deflate whatever its filter's name (pdf.js
 * checks the zlib header, not the name's spelling: `/Flate#44ecode` is FlateDecode). One that
 * calls itself an image (text extraction decodes none, but a page may use one as its contents)
 * counts apart, each within the bound and all of them within a larger one. A file that names a
 * filter the guard cannot count (LZW, run-length, Brotli), or gives a filter by reference,
 * or is encrypted (the guard would count ciphertext), is not read.
 */

/**
 * What a PDF's compressed streams but images may inflate to, all together: more than any text a
 * model is sent, and far below what would hurt the service. Each image is held to it too.
 */
export const MAX_PDF_INFLATED_BYTES = 64_000_000;
/** What a PDF's images may inflate to together, as a multiple of the bound: a manual's screenshots fit. */
export const IMAGE_BOUND_FACTOR = 8;

/** What a PDF's byte is, in a delimiter or space (PDF 32000 7.2.2): a name or a keyword ends there. */
const ENDS_TOKEN = String.raw`(?=[\s()<>[\]{}/%]|$)`;
/** Filters pdf.js decodes that may grow their input and that the guard does not count. */
const UNCOUNTED = new RegExp(String.raw`/(LZWDecode|LZW|RunLengthDecode|RL|BrotliDecode)${ENDS_TOKEN}`);
const HEX = new RegExp(String.raw`/(ASCIIHexDecode|AHx)${ENDS_TOKEN}`);
const BASE85 = new RegExp(String.raw`/(ASCII85Decode|A85)${ENDS_TOKEN}`);
/** `/Filter 7 0 R` or `/Filter [/A85 7 0 R]`: a name the guard may not see (it may sit in a compressed object). */
const FILTER_BY_REFERENCE = /\/Filter\s*(\d+\s+\d+\s+R|\[[^\]]*?\d+\s+\d+\s+R)/;
const ENCRYPTED = new RegExp(String.raw`/Encrypt${ENDS_TOKEN}`);
const IMAGE = new RegExp(String.raw`/Subtype\s*/Image${ENDS_TOKEN}`);

/** A name's `#xx` escapes written out: `/Flat#65Decode` is `/FlateDecode` to pdf.js. */
const unescapeNames = (text: string) =>
  text.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Bytes that inflate past `limit`: counted as they come, in pieces (nothing copied whole), stopped at once. */
export async function inflatedSize(data: Uint8Array, limit: number): Promise<number> {
  const PIECE = 65_536;
  let at = 0;
  const source = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      pull(controller) {
        if (at >= data.length) return controller.close();
        controller.enqueue(data.slice(at, (at += PIECE)));
      },
    },
    { highWaterMark: 0 },
  );
  const reader = source.pipeThrough(new DecompressionStream('deflate')).getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return total;
      total += value.length;
      if (total > limit) {
        void reader.cancel().catch(() => {});
        return total;
      }
    }
  } catch {
    // Not deflate, or damaged: pdf.js decides what it makes of it, and nothing grew past this.
    return total;
  }
}

/** Where a stream's data starts: after the keyword's line, as pdf.js's lexer skips it (CR, LF or CR LF). */
function dataStart(text: string, keywordEnd: number): number {
  for (let i = keywordEnd; i < text.length; i++) {
    if (text[i] === '\n') return i + 1;
    if (text[i] === '\r') return text[i + 1] === '\n' ? i + 2 : i + 1;
  }
  return text.length;
}

/** The small plain objects (`7 0 obj 1234 endobj`) a `Length` may point to, by "number generation". */
function integerObjects(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+(\d+)\s+obj\s*(\d+)\s*endobj/g))
    found.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return found;
}

/**
 * Where a stream's data ends, as pdf.js decides: its `Length` when `endstream` follows it (after
 * spaces and comments), else the first `endstream`. Data that holds the word `endstream` must
 * not end the count before pdf.js's end.
 */
function dataEnd(text: string, dictionary: string, start: number, lengths: Map<string, number>): number {
  const declared = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dictionary);
  const length =
    declared &&
    (declared[2] === undefined ? Number(declared[1]) : lengths.get(`${declared[1]} ${declared[2]}`));
  if (length !== undefined && length !== null && start + length <= text.length) {
    const after = text.slice(start + length, start + length + 1_024);
    if (/^(\s|%[^\r\n]*)*endstream/.test(after)) return start + length;
  }
  const found = text.indexOf('endstream', start);
  return found === -1 ? text.length : found;
}

/** `data` as pdf.js's ASCIIHexDecode reads it: hex digits in pairs, the rest skipped, `>` ends it. */
function fromHex(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 2));
  let n = 0;
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else {
      out[n++] = (high << 4) | digit;
      high = -1;
    }
  }
  if (high >= 0) out[n++] = high << 4;
  return out.subarray(0, n);
}

/** `data` as ASCII85Decode reads it: groups of five in `!`..`u`, `z` for four zeros, `~>` ends it. */
function fromBase85(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil((data.length * 4) / 5) + 4 * data.length);
  let n = 0;
  let group: number[] = [];
  const flush = (count: number) => {
    while (group.length < 5) group.push(84);
    const value = group.reduce((v, d) => v * 85 + d, 0);
    for (let i = 0; i < count; i++) out[n++] = (value >>> (24 - 8 * i)) & 0xff;
    group = [];
  };
  for (const c of data) {
    if (c === 0x7e) break;
    if (c === 0x7a && group.length === 0) n += 4;
    else if (c >= 0x21 && c <= 0x75) {
      group.push(c - 0x21);
      if (group.length === 5) flush(4);
    }
  }
  if (group.length > 1) flush(group.length - 1);
  return out.subarray(0, n);
}

/** A PDF's streams: each one's data and whether it calls itself an image. */
function* streamsOf(bytes: Uint8Array, text: string) {
  const lengths = integerObjects(text);
  let previous = 0;
  for (let at = text.indexOf('stream'); at !== -1; at = text.indexOf('stream', at + 6)) {
    // A keyword stands alone: not `endstream`, not the start of a longer word.
    if (text.startsWith('end', at - 3) || /[^\s()<>[\]{}/%]/.test(text[at + 6] ?? ' ')) continue;
    // Its dictionary since its object's header, or since the last keyword (each read once).
    const dictionary = unescapeNames(text.slice(Math.max(text.lastIndexOf('obj', at), previous), at));
    previous = at;
    const start = dataStart(text, at + 6);
    yield {
      data: bytes.subarray(start, dataEnd(text, dictionary, start, lengths)),
      image: IMAGE.test(dictionary),
    };
  }
}

/**
 * Why pdf.js may not read this PDF, or null when it may: a stream would inflate past `limit`
 * (an image past `limit`, or all images past `IMAGE_BOUND_FACTOR` times it), it names a filter
 * the guard cannot count ('inflates'), or it is encrypted ('encrypted').
 */
export async function streamRefusal(
  bytes: Uint8Array,
  limit = MAX_PDF_INFLATED_BYTES,
): Promise<'inflates' | 'encrypted' | null> {
  // One character per byte, so positions in the text are positions in the bytes.
  const text = new TextDecoder('latin1').decode(bytes);
  const names = unescapeNames(text);
  if (ENCRYPTED.test(names)) return 'encrypted';
  if (UNCOUNTED.test(names) || FILTER_BY_REFERENCE.test(names)) return 'inflates';
  const decoders = [
    (data: Uint8Array) => data,
    ...(HEX.test(names) ? [fromHex] : []),
    ...(BASE85.test(names) ? [fromBase85] : []),
  ];
  let left = limit;
  let imagesLeft = limit * IMAGE_BOUND_FACTOR;
  for (const { data, image } of streamsOf(bytes, text)) {
    const room = image ? Math.min(limit, imagesLeft) : left;
    let size = 0;
    for (const decode of decoders) size = Math.max(size, await inflatedSize(decode(data), room));
    if (size > room) return 'inflates';
    if (image) imagesLeft -= size;
    else left -= size;
  }
  return null;
}

/** Whether pdf.js may read this PDF (`streamRefusal` finds no reason not to). */
export const inflatesWithin = async (bytes: Uint8Array, limit = MAX_PDF_INFLATED_BYTES) =>
  (await streamRefusal(bytes, limit)) === null;
