/**
 * What an uploaded file is, decided from its bytes (wire contract §11), never from its name or
 * the type the browser declared: images (PNG, JPEG, WebP, GIF) and PDF by their signatures,
 * text by being valid UTF-8 without NUL. Markup (HTML, SVG, XML) is refused even as text, and so
 * is everything else: executables, archives (so no zip bomb is ever opened), office files.
 * Image dimensions are read from the headers, before anything decodes the pixels.
 */
import type { FileKind } from '../../contract/types.js';

export interface Detected {
  kind: FileKind;
  contentType: string;
}

/** Past these an image is refused: a model scales it down anyway, and a decoder would need 4 bytes a pixel. */
export const MAX_IMAGE_SIDE = 10_000;
export const MAX_IMAGE_PIXELS = 40_000_000;

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  signature.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0));

const IMAGES: [number[], number, string][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0, 'image/png'],
  [[0xff, 0xd8, 0xff], 0, 'image/jpeg'],
  [ascii('GIF87a'), 0, 'image/gif'],
  [ascii('GIF89a'), 0, 'image/gif'],
];

/**
 * The leading tags the WHATWG MIME sniffing standard takes for HTML, and XML's and SVG's: a text
 * that starts with one (after whitespace) is markup, refused whatever its name says.
 */
const MARKUP =
  /^(?:\ufeff)?\s*<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--|\?xml|svg|!\[cdata\[)(?=[\s>/]|$)/i;

/** The kind of file its first bytes say, or null (text is decided on the whole file: `isText`). */
export function detectHead(head: Uint8Array): Detected | 'maybe_text' | null {
  for (const [signature, at, contentType] of IMAGES)
    if (startsWith(head, signature, at)) return { kind: 'image', contentType };
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8))
    return { kind: 'image', contentType: 'image/webp' };
  if (startsWith(head, ascii('%PDF-'))) return { kind: 'pdf', contentType: 'application/pdf' };
  // No NUL in the head, and not markup: it may be text (decided on the whole file).
  if (head.includes(0)) return null;
  const start = new TextDecoder('utf-8', { fatal: false }).decode(head);
  return MARKUP.test(start) ? null : 'maybe_text';
}

export const TEXT: Detected = { kind: 'text', contentType: 'text/plain; charset=utf-8' };

/** Valid UTF-8 and no NUL: text a person wrote or a program logged. */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) =>
  ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);

/** An image's width and height from its headers, or null when they cannot be read (a damaged file). */
export function imageSize(bytes: Uint8Array, contentType: string): { width: number; height: number } | null {
  const size = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
  switch (contentType) {
    case 'image/png':
      // The IHDR chunk comes first: its width and height at 16 and 20.
      return bytes.length >= 24 && startsWith(bytes, ascii('IHDR'), 12)
        ? size(u32be(bytes, 16), u32be(bytes, 20))
        : null;
    case 'image/gif':
      return bytes.length >= 10 ? gifSize(bytes, size) : null;
    case 'image/webp':
      return webpSize(bytes);
    case 'image/jpeg':
      return jpegSize(bytes);
    default:
      return null;
  }
}

/** Bytes of a GIF color table whose flags are `packed` (none unless its top bit is set). */
const gifColors = (packed: number) => (packed & 0x80 ? 3 << ((packed & 7) + 1) : 0);

/**
 * A GIF's size as decoders make it: its logical screen, grown to every frame that reaches past
 * it. Chromium grows it to the first frame, Pillow to each: a 1 × 1 screen with a 20,000 ×
 * 20,000 frame is decoded at 20,000 × 20,000. The walk steps over a stray byte as Pillow does.
 */
function gifSize(
  b: Uint8Array,
  size: (width: number, height: number) => { width: number; height: number } | null,
) {
  let width = u16le(b, 6);
  let height = u16le(b, 8);
  let at = 13 + gifColors(b[10]);
  while (at < b.length && b[at] !== 0x3b) {
    if (b[at] === 0x2c && at + 10 <= b.length) {
      width = Math.max(width, u16le(b, at + 1) + u16le(b, at + 5));
      height = Math.max(height, u16le(b, at + 3) + u16le(b, at + 7));
      // The descriptor, its color table, and the LZW code size before the data.
      at += 10 + gifColors(b[at + 9]) + 1;
    } else if (b[at] === 0x21) at += 2;
    else {
      at += 1;
      continue;
    }
    // The data: sub-blocks, each after its length, up to an empty one.
    while (at < b.length && b[at] !== 0) at += b[at] + 1;
    at += 1;
  }
  return size(width, height);
}

function webpSize(b: Uint8Array): { width: number; height: number } | null {
  if (b.length < 30) return null;
  if (startsWith(b, ascii('VP8X'), 12)) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  if (startsWith(b, ascii('VP8L'), 12) && b[20] === 0x2f) {
    const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (startsWith(b, ascii('VP8 '), 12) && startsWith(b, [0x9d, 0x01, 0x2a], 23)) {
    const width = u16le(b, 26) & 0x3fff;
    const height = u16le(b, 28) & 0x3fff;
    return width && height ? { width, height } : null;
  }
  return null;
}

/** A JPEG's frame size: the first start-of-frame marker, walking the segments by their lengths. */
function jpegSize(b: Uint8Array): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    // TEM and RST0-7 have no length, and decoders step over them: read as one, their next two
    // bytes jumped past the frame a decoder reads to any frame the file put there.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    // A stuffed byte, a second start, an end or the scan before any frame: nothing to measure.
    if (marker === 0x00 || (marker >= 0xd8 && marker <= 0xda)) return null;
    // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = u16be(b, at + 5);
      const width = u16be(b, at + 7);
      return width && height ? { width, height } : null;
    }
    at += 2 + u16be(b, at + 2);
  }
  return null;
}
