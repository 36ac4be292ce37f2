/** A stream of records that fails before its first one, as a chat request whose connection fails. */
export function failingStream<T>(error: unknown): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) };
}

/** The address a fetch was called with, whichever form it came in. */
export function urlOf(input: RequestInfo | URL): string {
  return input instanceof Request ? input.url : input.toString();
}
