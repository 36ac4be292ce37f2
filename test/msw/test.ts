import { test as base } from 'vitest';
import { http, HttpResponse, isCommonAssetRequest } from 'msw';
import { setupWorker } from 'msw/browser';
import type { AgentServiceOptions } from '../../service/index.js';
import { referenceBackend } from './reference.js';
import { pageSideDrops } from './stream.js';

/** Requests no handler answered during a test (msw answers them with a 500). */
const unhandled: string[] = [];
/** Between one test's end and the next one's start: what arrives then belongs to no test. */
let betweenTests = false;

/**
 * Requests made after their test ended, by an element the test has already removed (a
 * fire-and-forget report, a list a restored panel fetches when idle): no test can see the
 * answer, so they get a quiet 503 rather than failing the next test. Every other request
 * falls through to the test's own handlers, or fails the test.
 */
const afterTheTest = http.all('*', ({ request }) =>
  betweenTests && !isCommonAssetRequest(request) ? new HttpResponse(null, { status: 503 }) : undefined,
);

/**
 * Browser-test `test` with one msw worker per file (a worker per test logs redundant-start
 * warnings) and handlers reset after each test. A request no handler answers fails its test.
 *
 * A test that names `backend` gets the reference service and a session endpoint behind msw
 * (test/msw/reference.ts), built with `backendOptions`: the defaults, unless a describe block
 * sets others with `test.override('backendOptions', …)`. Handlers a test adds with
 * `worker.use` come first, so they answer before the backend does.
 */
export const test = base
  // oxlint-disable-next-line no-empty-pattern -- Vitest reads a fixture's needs from an object pattern, even an empty one.
  .extend('worker', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    const worker = setupWorker(afterTheTest);
    await worker.start({
      quiet: true,
      onUnhandledRequest(request, print) {
        // Modules, styles and fonts Vite serves pass, as with the built-in 'error' strategy.
        if (isCommonAssetRequest(request)) return;
        // The test page itself, which DevTools re-reads when the screenshot tests ask which
        // fonts drew the text (test/browser-commands.ts): not a request the code under test made.
        const url = new URL(request.url);
        if (url.origin === location.origin && url.pathname === '/' && url.searchParams.has('iframeId'))
          return;
        unhandled.push(`${request.method} ${url.href}`);
        print.error();
      },
    });
    const restoreFetch = pageSideDrops();
    onCleanup(() => {
      restoreFetch();
      worker.stop();
    });
    return worker;
  })
  .extend('resetMsw', { auto: true }, async ({ worker }, { onCleanup }) => {
    betweenTests = false;
    onCleanup(() => {
      betweenTests = true;
      // Back to the initial handlers: only the after-the-test answer.
      worker.resetHandlers();
      const missed = unhandled.splice(0);
      if (missed.length) throw new Error(`requests without an msw handler: ${missed.join(', ')}`);
    });
  })
  .extend('backendOptions', {} as Partial<AgentServiceOptions>)
  .extend('backend', async ({ worker, backendOptions }) => {
    const backend = referenceBackend(backendOptions);
    worker.use(...backend.handlers);
    return backend;
  });
