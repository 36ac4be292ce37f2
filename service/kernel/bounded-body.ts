/**
 * A body (a request's, a model server's answer, a crawled page) read whole but at most `limit`
 * bytes, counted as they arrive: a larger one is never held, whatever its declared length says.
 * null when it is longer (what was read is dropped and the rest not read).
 */
export async function readBounded(
  message: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
): Promise<Uint8Array | null> {
  if (Number(message.headers.get('Content-Length')) > limit) {
    await message.body?.cancel().catch(() => {});
    return null;
  }
  if (!message.body) return new Uint8Array();
  const reader = message.body.getReader();
  // Chunks as they come (a small body is usually one): no buffer of `limit` bytes per read.
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) return null;
      chunks.push(value);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return joinChunks(chunks, size);
}

/** `chunks` as one array of `size` bytes (their total); a single chunk is returned as it is, not copied. */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
