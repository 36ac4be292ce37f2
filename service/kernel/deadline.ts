/**
 * A signal that aborts after `ms` with a `TimeoutError`, or as `outer` does. Not
 * `AbortSignal.any([AbortSignal.timeout(ms), outer])`: on Node 20 a garbage collection can take
 * the timeout signal of such a pair before it fires (the pair holds it weakly, and nothing
 * listens on it), so a body that drips for ever was never cut off: a timer that holds its
 * controller fires whatever is collected.
 */
export function deadline(ms: number, outer?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const onAbort = () => {
    clearTimeout(timer);
    controller.abort(outer?.reason);
  };
  const timer = setTimeout(() => {
    outer?.removeEventListener('abort', onAbort);
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  // Node: the timer does not keep a program alive that has nothing else to do.
  (timer as { unref?: () => void }).unref?.();
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return controller.signal;
}
