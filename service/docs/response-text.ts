/**
 * A crawled response's body, read within a byte limit: as text in the charset it names (or its
 * HTML's `<meta charset>`), or a sitemap parsed as it streams, gzipped or not, never held whole.
 */
import { readBounded } from '../kernel/bounded-body.js';
import { type SitemapEntries, sitemapParser } from './sitemap.js';

/** A response's body as text, at most `limit` bytes; null when it is longer. */
export async function readText(response: Response, limit: number): Promise<string | null> {
  const bytes = await readBounded(response, limit);
  return bytes && decode(bytes, response.headers.get('Content-Type') ?? '');
}

/**
 * What a sitemap lists, gzipped (`sitemap.xml.gz`, as the sitemaps protocol allows and large
 * sites serve) or not, parsed as it streams: at most `limit` bytes as sent and once inflated
 * (a small file that inflates without end is refused, not held), and never held whole, as bytes
 * or as text (decision 663). null when it is longer; damaged gzip, or more bytes sent than
 * `limit`, fail as a body that broke off does (the caller reads neither).
 */
export async function readSitemap(response: Response, limit: number): Promise<SitemapEntries | null> {
  const parser = sitemapParser();
  if (Number(response.headers.get('Content-Length')) > limit) {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  if (!response.body) return parser.end();
  const { body, gzipped } = await inflated(response.body, limit);
  // The protocol's sitemaps are UTF-8; one sent as is may name another charset.
  const decoder = textDecoder(gzipped ? 'utf-8' : charsetOf(response.headers.get('Content-Type') ?? ''));
  const reader = body.getReader();
  let size = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if ((size += chunk.value.byteLength) > limit) return null;
      parser.write(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  parser.write(decoder.decode());
  return parser.end();
}

/** The charset a Content-Type names, if it names one. */
const charsetOf = (type: string) => /charset=["']?([\w.:-]+)/i.exec(type)?.[1];

/** A decoder for the charset `label` names, UTF-8 when it names none this runtime knows. */
function textDecoder(label: string | undefined): TextDecoder {
  try {
    return new TextDecoder(label ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/**
 * `body` inflated when it is gzip (its first two bytes say so), its bytes as sent counted: past
 * `limit`, the stream fails.
 */
async function inflated(body: ReadableStream<Uint8Array>, limit: number) {
  const reader = body.getReader();
  // Bytes as they came from the network: never a shared buffer.
  let head = new Uint8Array() as Uint8Array<ArrayBuffer>;
  let sent = 0;
  const read = async () => {
    const chunk = await reader.read();
    if (!chunk.done && (sent += chunk.value.byteLength) > limit) throw new Error(`more than ${limit} bytes`);
    return chunk;
  };
  while (head.length < 2) {
    const chunk = await read();
    if (chunk.done) break;
    head = head.length ? new Uint8Array([...head, ...chunk.value]) : (chunk.value as Uint8Array<ArrayBuffer>);
  }
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start: (controller) => void (head.length && controller.enqueue(head)),
    async pull(controller) {
      const chunk = await read();
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value as Uint8Array<ArrayBuffer>);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  return { body: gzipped ? stream.pipeThrough(new DecompressionStream('gzip')) : stream, gzipped };
}

/** Bytes as text in the charset the header names, or a `<meta charset>` in the first 1 KB, else UTF-8. */
function decode(bytes: Uint8Array, type: string): string {
  let label = charsetOf(type);
  if (!label && /html/i.test(type)) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
    label = /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  return textDecoder(label).decode(bytes);
}
