/**
 * One file out of a `multipart/form-data` body (RFC 7578), read as it streams: the part's bytes
 * are counted as they arrive, the caller decides its limit from the first bytes (the type is in
 * them), and the read stops, the stream cancelled, the moment a limit is passed. Nothing past a
 * limit is ever held. Written here rather than taken from a library: the well-kept parsers
 * (busboy, formidable) are built on Node streams, and the service's core runs on web streams
 * only (in Chromium under msw as well as in Node); the one part this reads needs ~150 lines.
 */
import { joinChunks } from '../kernel/bounded-body.js';
import { HttpError, badRequest } from './errors.js';

export interface FilePart {
  /** The filename the client sent (`filename*` when given), undecoded beyond that; '' when none. */
  filename: string;
  bytes: Uint8Array;
}

/** How many leading bytes `limitFor` sees (enough for every signature the service checks). */
const HEAD_BYTES = 64;
/** A part's headers, and the preamble before the first boundary, may take this much. */
const MAX_HEADER_BYTES = 8 * 1024;

const encoder = new TextEncoder();
const latin1 = new TextDecoder('latin1');
const HEADERS_END = encoder.encode('\r\n\r\n');

/** The boundary of a `multipart/form-data` Content-Type, else a 400. */
export function boundaryOf(contentType: string | null): string {
  const match = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(
    contentType ?? '',
  );
  if (!match) throw badRequest('The body must be multipart/form-data with one part named "file".');
  return match[1] ?? match[2];
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  for (let i = haystack.indexOf(first, from); i !== -1 && i + needle.length <= haystack.length;) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
    i = haystack.indexOf(first, i + 1);
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The filename of a part's Content-Disposition: `filename*` (RFC 5987) wins over `filename`. */
function filenameOf(headers: string): { name: string | null; filename: string } {
  const disposition = /^content-disposition:\s*form-data\s*(;.*)$/im.exec(headers)?.[1] ?? '';
  const param = (key: string) =>
    new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition);
  const name = param('name');
  const extended = /;\s*filename\*=([\w-]+)'[^']*'([^;\s]*)/i.exec(disposition);
  let filename = '';
  if (extended && /^utf-8$/i.test(extended[1])) {
    try {
      filename = decodeURIComponent(extended[2]);
    } catch {
      filename = '';
    }
  }
  if (!filename) {
    const plain = param('filename');
    // Browsers send the name's UTF-8 bytes as they are; headers were read as Latin-1, so read them again.
    const raw = plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : '';
    // …and browsers escape a quote in the name as %22 (the HTML standard's form encoding).
    filename = new TextDecoder()
      .decode(Uint8Array.from(raw, (c) => c.charCodeAt(0) & 0xff))
      .replace(/%22/g, '"');
  }
  return { name: name ? (name[1] ?? name[2]) : null, filename };
}

/** The body's bytes as they come, with what is read but not yet taken. */
class Incoming {
  buffer: Uint8Array = new Uint8Array(0);
  private ended = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads one more chunk into the buffer; false at the end of the body. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done) this.ended = true;
    else this.buffer = concat(this.buffer, value);
    return !done;
  }

  /** Reads until `needle` is in the buffer (its index), refusing a buffer past `max` bytes. */
  async find(needle: Uint8Array, max: number, fail: () => HttpError): Promise<number> {
    let at: number;
    while ((at = indexOf(this.buffer, needle)) === -1)
      if (this.buffer.length > max || !(await this.more())) throw fail();
    return at;
  }
}

/**
 * Reads the body's one part named `file`. `limitFor` gets its first bytes (up to HEAD_BYTES, or
 * all of a shorter file) and answers how many bytes the part may have, or throws (an
 * unsupported type). `tooLarge` is thrown once the part passes that.
 */
export async function readFilePart(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  limitFor: (head: Uint8Array) => number,
  tooLarge: (limit: number) => HttpError,
): Promise<FilePart> {
  if (!body) throw badRequest('The body is empty.');
  const reader = body.getReader();
  const input = new Incoming(reader);
  try {
    // The preamble and the first boundary line, then the part's headers.
    const start = encoder.encode(`--${boundary}\r\n`);
    const at = await input.find(start, MAX_HEADER_BYTES, () =>
      badRequest('No multipart boundary in the body.'),
    );
    input.buffer = input.buffer.subarray(at + start.length);
    const end = await input.find(HEADERS_END, MAX_HEADER_BYTES, () =>
      badRequest("The part's headers are malformed."),
    );
    const { name, filename } = filenameOf(latin1.decode(input.buffer.subarray(0, end)));
    if (name !== 'file') throw badRequest('The body must have one part, named "file".');
    input.buffer = input.buffer.subarray(end + HEADERS_END.length);
    const delimiter = encoder.encode(`\r\n--${boundary}`);
    return { filename, bytes: await readPartBody(input, delimiter, limitFor, tooLarge) };
  } finally {
    void reader.cancel().catch(() => {});
  }
}

/** The part's bytes up to the delimiter, within the limit its first bytes decide. */
async function readPartBody(
  input: Incoming,
  delimiter: Uint8Array,
  limitFor: (head: Uint8Array) => number,
  tooLarge: (limit: number) => HttpError,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  let limit: number | null = null;
  for (;;) {
    const buffer = input.buffer;
    const at = indexOf(buffer, delimiter);
    // Bytes surely before the delimiter: all but a tail that may be its start.
    const safe = at === -1 ? Math.max(0, buffer.length - delimiter.length + 1) : at;
    if (limit === null && (at !== -1 || safe + length >= HEAD_BYTES))
      limit = limitFor(concat(joinChunks(chunks, length), buffer.subarray(0, safe)).subarray(0, HEAD_BYTES));
    if (safe > 0) {
      chunks.push(buffer.slice(0, safe));
      length += safe;
      input.buffer = buffer.subarray(safe);
    }
    if (limit !== null && length > limit) throw tooLarge(limit);
    if (at !== -1) {
      // After the delimiter: `--` closes the body; another part is more than the one asked for.
      while (input.buffer.length < delimiter.length + 2 && (await input.more()));
      const rest = input.buffer.subarray(delimiter.length, delimiter.length + 2);
      if (rest[0] !== 0x2d || rest[1] !== 0x2d)
        throw badRequest('The body must have one part, named "file".');
      return joinChunks(chunks, length);
    }
    if (!(await input.more())) throw badRequest('The body ended inside the file.');
  }
}
