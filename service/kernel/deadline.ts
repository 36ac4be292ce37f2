/**
 * A signal that aborts after `ms` with a `TimeoutError`, or as `outer` does. Not
 * `AbortSignal.any([AbortSignal.timeout(ms), outer])`: on Node 20 a garbage collection can take
 * the timeout signal of such a pair before it fires (the pair holds it weakly, and nothing
 * listens on it), so a body that drips for ever was never cut off (decision 651). Here a timer
 * holds the controller, so it fires whatever is collected; and `outer` gets no listener per
 * request (a crawl's thousands would be a leak, and a warning past ten).
 */
export function deadline(ms: number, outer?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')),
    ms,
  );
  // Node: the timer does not keep a program alive that has nothing else to do.
  (timer as { unref?: () => void }).unref?.();
  return outer ? AbortSignal.any([controller.signal, outer]) : controller.signal;
}
