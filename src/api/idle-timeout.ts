/**
 * A stream that sends nothing for this long is given up as interrupted (decision 67). Its own
 * module: the loader reports it as `streamIdleTimeout` before the element (and the stream
 * reader) have loaded.
 */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;
