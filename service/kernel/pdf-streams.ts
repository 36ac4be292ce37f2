/**
 * The zip-bomb guard before pdf.js reads a PDF (decisions 376, 722). pdf.js holds a decoded
 * stream whole, so what it would inflate is counted first, through `DecompressionStream`, and a
 * file past the bound is not given to it. The count must see every stream pdf.js decodes, so it
 * relies on nothing a stream says of itself that pdf.js does not rely on too: a stream is found
 * as pdf.js finds it (its keyword's line ended by CR, LF or both; its data as long as a `Length`
 * that ends at `endstream`), and every one is tried as deflate whatever its filter's name (pdf.js
 * checks the zlib header, not the name's spelling: `/Flate#44ecode` is FlateDecode). One that
 * calls itself an image (text extraction decodes none, but a page may use one as its contents)
 * counts apart, each within the bound and all of them within a larger one. What a stream
 * inflates to is tried again (pdf.js applies a chain of filters in full), and an object
 * stream's objects are looked through as a file (pdf.js reads streams written there too;
 * decision 782). A file that names a filter the guard cannot count (LZW, run-length, Brotli),
 * or gives a filter by reference, or is encrypted (the guard would count ciphertext), is not read.
 */
import { joinChunks } from './bounded-body.js';

/**
 * What a PDF's compressed streams but images may inflate to, all together: more than any text a
 * model is sent, and far below what would hurt the service. Each image is held to it too.
 */
export const MAX_PDF_INFLATED_BYTES = 64_000_000;
/** What a PDF's images may inflate to together, as a multiple of the bound: a manual's screenshots fit. */
const IMAGE_BOUND_FACTOR = 8;
/**
 * The guard's own work, past which a file is refused: `stream` words it looks at, streams it
 * starts inflating (a quarter of a millisecond each to start; a file may plant a great many),
 * and bytes it feeds the inflater as a multiple of the file's size (each stream is fed once as it
 * is, and once decoded from ASCII when the file names such a filter). A crafted 20 MB file
 * costs the guard a few seconds at most; a real one, thousands of streams, is far within.
 */
export const GUARD_WORK = { keywords: 200_000, inflations: 20_000, fedPerByte: 4 };

/** What the guard has spent on one file. */
interface Work {
  inflations: number;
  fed: number;
}

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
const OBJECTS = new RegExp(String.raw`/First${ENDS_TOKEN}`);

/** A name's `#xx` escapes written out: `/Flat#65Decode` is `/FlateDecode` to pdf.js. */
const unescapeNames = (text: string) =>
  text.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A stream's data read piece by piece and decoded on the way (ASCII hex, base-85), or as it is. */
type Decoder = () => (piece: Uint8Array) => Uint8Array;

const asIs: Decoder = () => (piece) => piece;

/** pdf.js's ASCIIHexDecode: hex digits in pairs, anything else skipped, `>` ends it. */
const fromHex: Decoder = () => {
  let high = -1;
  let ended = false;
  return (piece) => {
    const out = new Uint8Array(Math.ceil(piece.length / 2));
    let n = 0;
    for (let i = 0; i < piece.length && !ended; i++) {
      const c = piece[i];
      const lower = c | 0x20;
      const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
      if (c === 0x3e) ended = true;
      else if (digit >= 0 && high < 0) high = digit;
      else if (digit >= 0) [out[n++], high] = [(high << 4) | digit, -1];
    }
    return out.subarray(0, n);
  };
};

/** pdf.js's ASCII85Decode: groups of five in `!`..`u`, `z` four zeros, `~` ends it (a last short group is left out). */
const fromBase85: Decoder = () => {
  let group = 0;
  let digits = 0;
  let ended = false;
  return (piece) => {
    const out = new Uint8Array(piece.length * 4);
    let n = 0;
    for (let i = 0; i < piece.length && !ended; i++) {
      const c = piece[i];
      if (c === 0x7e) ended = true;
      else if (c === 0x7a && digits === 0) n += 4;
      else if (c >= 0x21 && c <= 0x75) {
        group = group * 85 + (c - 0x21);
        if (++digits < 5) continue;
        for (let k = 0; k < 4; k++) out[n++] = (group >>> (24 - 8 * k)) & 0xff;
        [group, digits] = [0, 0];
      }
    }
    return out.subarray(0, n);
  };
};

/**
 * The data's pieces, decoded: small first, so that data which is no deflate costs little to
 * find out (a file may hold a great many `stream` words), then growing to 64 KB.
 */
function* piecesOf(data: Uint8Array, decoder: Decoder, work: Work) {
  const decode = decoder();
  let size = 16;
  for (let at = 0; at < data.length; at += size, size = Math.min(size * 4, 65_536)) {
    const piece = data.subarray(at, at + size);
    work.fed += piece.length;
    yield decode(piece);
  }
}

/** The zlib header pdf.js's FlateStream (and `DecompressionStream`) requires: deflate, its check right, no dictionary. */
const zlibHeader = (cmf: number, flg: number) =>
  (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0 && !(flg & 0x20);

/**
 * What `data`, decoded, inflates to, collected as it comes and stopped once past `limit` (what
 * it holds is then longer than `limit`); null when it is no deflate. Its work is added to `work`.
 */
async function inflated(
  data: Uint8Array,
  limit: number,
  decoder: Decoder,
  work: Work,
): Promise<Uint8Array | null> {
  const pieces = piecesOf(data, decoder, work);
  let head: number[] = [];
  while (head.length < 2) {
    const next = pieces.next();
    if (next.done) return null;
    head = [...head, ...next.value];
  }
  if (!zlibHeader(head[0], head[1])) return null;
  work.inflations += 1;
  const source = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start: (controller) => controller.enqueue(Uint8Array.from(head)),
      pull(controller) {
        const next = pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value.slice());
      },
    },
    { highWaterMark: 0 },
  );
  return collected(source.pipeThrough(new DecompressionStream('deflate')).getReader(), limit);
}

/** The bytes a reader gives until its end, or until past `limit` (then it is stopped). */
async function collected(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
      if (total > limit) {
        void reader.cancel().catch(() => {});
        break;
      }
    }
  } catch {
    // Damaged deflate: pdf.js decides what it makes of it, and nothing grew past this.
  }
  return joinChunks(chunks, total);
}

/** `data` through `decoder` alone (an object stream in ASCII hex or base-85, deflated nowhere). */
function decodedBy(data: Uint8Array, decoder: Decoder, work: Work): Uint8Array {
  const chunks = [...piecesOf(data, decoder, work)];
  return joinChunks(
    chunks,
    chunks.reduce((n, chunk) => n + chunk.length, 0),
  );
}

/**
 * Where `needle` is next from a position, for positions that only grow: found once and kept
 * until passed, so a file of many `stream` words is searched through once, not once a word.
 */
function nextOf(text: string, needle: string) {
  let found = -2;
  return (position: number) => {
    if (found !== -1 && found < position) found = text.indexOf(needle, position);
    return found === -1 ? text.length : found;
  };
}

/** The small plain objects (`7 0 obj 1234 endobj`) a `Length` may point to, by "number generation". */
function integerObjects(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+(\d+)\s+obj\s*(\d+)\s*endobj/g))
    found.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return found;
}

interface Finders {
  lengths: Map<string, number>;
  lineFeed: (from: number) => number;
  carriageReturn: (from: number) => number;
  endstream: (from: number) => number;
}

/** Where a stream's data starts: after the keyword's line, as pdf.js's lexer skips it (CR, LF or CR LF). */
function dataStart(text: string, keywordEnd: number, find: Finders): number {
  const lf = find.lineFeed(keywordEnd);
  const cr = find.carriageReturn(keywordEnd);
  if (lf < cr) return lf + 1;
  if (cr === text.length) return cr;
  return text[cr + 1] === '\n' ? cr + 2 : cr + 1;
}

/**
 * Where a stream's data ends, as pdf.js decides: its `Length` when `endstream` follows it (after
 * spaces and comments), else the first `endstream`. Data that holds the word `endstream` must
 * not end the count before pdf.js's end.
 */
function dataEnd(text: string, dictionary: string, start: number, find: Finders): number {
  const declared = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dictionary);
  const length =
    declared &&
    (declared[2] === undefined ? Number(declared[1]) : find.lengths.get(`${declared[1]} ${declared[2]}`));
  if (length !== undefined && length !== null && start + length <= text.length) {
    const after = text.slice(start + length, start + length + 1_024);
    if (/^(\s|%[^\r\n]*)*endstream/.test(after)) return start + length;
  }
  return find.endstream(start);
}

/**
 * A PDF's streams, each one's data, whether it calls itself an image, and whether it may hold
 * objects (pdf.js reads any stream with a `First` as an object stream when a cross-reference
 * points into it, whatever its `Type`); every `stream` word is one.
 */
function* streamsOf(bytes: Uint8Array, text: string) {
  const find: Finders = {
    lengths: integerObjects(text),
    lineFeed: nextOf(text, '\n'),
    carriageReturn: nextOf(text, '\r'),
    endstream: nextOf(text, 'endstream'),
  };
  let previous = 0;
  for (let at = text.indexOf('stream'); at !== -1; at = text.indexOf('stream', at + 6)) {
    // A keyword stands alone: not `endstream`, not the start of a longer word.
    if (text.startsWith('end', at - 3) || /[^\s()<>[\]{}/%]/.test(text[at + 6] ?? ' ')) continue;
    // Its dictionary since its object's header, within what the last keyword left (each byte read once).
    const before = text.slice(previous, at);
    const dictionary = unescapeNames(before.slice(Math.max(before.lastIndexOf('obj'), 0)));
    previous = at;
    const start = dataStart(text, at + 6, find);
    yield {
      data: bytes.subarray(start, dataEnd(text, dictionary, start, find)),
      image: IMAGE.test(dictionary),
      objects: OBJECTS.test(dictionary),
    };
  }
}

/**
 * How many times over a stream's data may be inflated again (a chain of filters, an object
 * stream inside another): a real file inflates a stream once, and an object stream's once more.
 */
export const MAX_DEPTH = 4;

/** One PDF's count: what its streams may still inflate to, and the guard's work on it. */
interface Count {
  limit: number;
  left: number;
  imagesLeft: number;
  work: Work;
  keywords: number;
  /** Bytes looked through (the file's, and what was inflated and looked into again): the work's measure. */
  scanned: number;
}

type Stream = { data: Uint8Array; image: boolean; objects: boolean };

const overworked = ({ work, scanned }: Count) =>
  work.inflations > GUARD_WORK.inflations || work.fed > GUARD_WORK.fedPerByte * scanned + 65_536;

/**
 * Whether a stream's data may decode past what is left, or past the guard's work: inflated after
 * each decoder, and what that makes inflated again (pdf.js applies `[/FlateDecode /FlateDecode]`
 * twice), each level counted; an object stream's objects (its data decoded any way) are a file
 * of their own.
 */
async function pastBounds(
  { data, image, objects }: Stream,
  decoders: readonly Decoder[],
  count: Count,
  depth: number,
): Promise<boolean> {
  for (const decoder of decoders) {
    const room = image ? Math.min(count.limit, count.imagesLeft) : count.left;
    const out = await inflated(data, room, decoder, count.work);
    if (overworked(count)) return true;
    if (out === null) {
      if (objects && decoder !== asIs) {
        const decoded = decodedBy(data, decoder, count.work);
        count.scanned += decoded.length;
        if (await refusal(decoded, count, depth + 1)) return true;
      }
      continue;
    }
    if (out.length > room || depth >= MAX_DEPTH) return true;
    if (image) count.imagesLeft -= out.length;
    else count.left -= out.length;
    count.scanned += out.length;
    if (await pastBounds({ data: out, image, objects }, decoders, count, depth + 1)) return true;
    if (objects && (await refusal(out, count, depth + 1))) return true;
  }
  return false;
}

/** Why `bytes` (a file, or an object stream's objects at `depth`) may not be read, or null. */
async function refusal(
  bytes: Uint8Array,
  count: Count,
  depth: number,
): Promise<'inflates' | 'encrypted' | null> {
  if (depth > MAX_DEPTH) return 'inflates';
  // One character per byte, so positions in the text are positions in the bytes.
  const text = new TextDecoder('latin1').decode(bytes);
  const names = unescapeNames(text);
  if (depth === 0 && ENCRYPTED.test(names)) return 'encrypted';
  if (UNCOUNTED.test(names) || FILTER_BY_REFERENCE.test(names)) return 'inflates';
  const decoders = [asIs, ...(HEX.test(names) ? [fromHex] : []), ...(BASE85.test(names) ? [fromBase85] : [])];
  for (const stream of streamsOf(bytes, text)) {
    if (++count.keywords > GUARD_WORK.keywords) return 'inflates';
    // Past the guard's own work, the file is refused: what it holds was not all counted.
    if (await pastBounds(stream, decoders, count, depth)) return 'inflates';
  }
  return null;
}

/**
 * Why pdf.js may not read this PDF, or null when it may: a stream would inflate past `limit`
 * (an image past `limit`, or all images past `IMAGE_BOUND_FACTOR` times it), counting what its
 * inflation inflates to in turn and the streams inside object streams, it names a filter the
 * guard cannot count, or counting it would take more than `GUARD_WORK` ('inflates'); it is
 * encrypted ('encrypted').
 */
export function streamRefusal(
  bytes: Uint8Array,
  limit = MAX_PDF_INFLATED_BYTES,
): Promise<'inflates' | 'encrypted' | null> {
  return refusal(
    bytes,
    {
      limit,
      left: limit,
      imagesLeft: limit * IMAGE_BOUND_FACTOR,
      work: { inflations: 0, fed: 0 },
      keywords: 0,
      scanned: bytes.length,
    },
    0,
  );
}

/** Whether pdf.js may read this PDF (`streamRefusal` finds no reason not to). */
export const inflatesWithin = async (bytes: Uint8Array, limit = MAX_PDF_INFLATED_BYTES) =>
  (await streamRefusal(bytes, limit)) === null;
