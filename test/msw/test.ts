import { test as base } from 'vitest';
import { setupWorker } from 'msw/browser';

/**
 * Browser-test `test` with one msw worker per file (a worker per test logs redundant-start
 * warnings) and handlers reset after each test. Unhandled requests fail loudly.
 */
export const test = base
  .extend('worker', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    const worker = setupWorker();
    await worker.start({ quiet: true, onUnhandledRequest: 'error' });
    onCleanup(() => worker.stop());
    return worker;
  })
  .extend('resetMsw', { auto: true }, async ({ worker }, { onCleanup }) => {
    onCleanup(() => worker.resetHandlers());
  });
