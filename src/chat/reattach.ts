/** Automatic reattach attempts (§9) after a dropped connection, before Retry is offered. */
export const REATTACH_ATTEMPTS = 4;
/** First wait; each further attempt waits twice as long (0.5, 1, 2, 4 s). */
export const REATTACH_BASE_DELAY_MS = 500;

export function reattachDelay(attempt: number): number {
  return REATTACH_BASE_DELAY_MS * 2 ** attempt;
}

/**
 * Resolves once the browser says it is online (at once where it cannot tell); `offline` is called
 * when it has to wait.
 */
export function whenOnline(signal: AbortSignal, offline?: () => void): Promise<void> {
  if (
    typeof navigator === 'undefined' ||
    navigator.onLine !== false ||
    typeof addEventListener !== 'function'
  )
    return Promise.resolve();
  offline?.();
  return new Promise((resolve, reject) => {
    const done = () => {
      removeEventListener('online', done);
      signal.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      removeEventListener('online', done);
      reject(signal.reason);
    };
    addEventListener('online', done);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Waits `ms` (then for the browser to be online); rejects with the signal's reason on abort.
 * `offline` is called when the browser is offline, at the start or once the wait is over.
 */
export async function backoff(ms: number, signal: AbortSignal, offline?: () => void): Promise<void> {
  if (offline && typeof navigator !== 'undefined' && navigator.onLine === false) offline();
  await new Promise<void>((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
  await whenOnline(signal, offline);
}
