import { test as base } from 'vitest';
import { isCommonAssetRequest } from 'msw';
import { setupWorker } from 'msw/browser';

/** Requests no handler answered since the last check (msw answers them with a 500). */
const unhandled: string[] = [];

/**
 * Browser-test `test` with one msw worker per file (a worker per test logs redundant-start
 * warnings) and handlers reset after each test. An unhandled request fails the test it happened
 * in, or, when it outlived its test (a request the test did not wait for), the next one.
 */
export const test = base
  .extend('worker', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    const worker = setupWorker();
    await worker.start({
      quiet: true,
      onUnhandledRequest(request, print) {
        // Modules, styles and fonts Vite serves pass, as with the built-in 'error' strategy.
        if (isCommonAssetRequest(request)) return;
        // The test page itself, which DevTools re-reads when the screenshot tests ask which
        // fonts drew the text (test/browser-commands.ts): not a request the code under test made.
        const url = new URL(request.url);
        if (url.origin === location.origin && url.pathname === '/' && url.searchParams.has('iframeId')) return;
        unhandled.push(`${request.method} ${url.href}`);
        print.error();
      },
    });
    onCleanup(() => worker.stop());
    return worker;
  })
  .extend('resetMsw', { auto: true }, async ({ worker }, { onCleanup }) => {
    onCleanup(() => {
      worker.resetHandlers();
      const missed = unhandled.splice(0);
      if (missed.length) throw new Error(`requests without an msw handler: ${missed.join(', ')}`);
    });
  });
