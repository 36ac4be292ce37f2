/** Runs `callback` when the page is idle (within `timeout` ms); a short timer where requestIdleCallback is missing (Safari). */
export function whenIdle(callback: () => void, timeout = 200): void {
  if ('requestIdleCallback' in globalThis) requestIdleCallback(callback, { timeout });
  else setTimeout(callback, 16);
}
