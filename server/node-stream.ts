/**
 * A Node request's body as a web stream, pull-based so a slow handler applies backpressure to
 * the socket. Shared by toNodeHandler and the service's own Node handler.
 */
export function bodyStream(req: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
