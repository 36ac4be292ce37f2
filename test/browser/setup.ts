import './quiet-lit-dev-mode.js';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { fixtureCleanup } from '@open-wc/testing';
import { clearDeviceMemory } from '../../src/chat/device-memory-store.js';

// Files share one origin, so one IndexedDB: every test starts from an empty cache.
beforeEach(async () => {
  await clearDeviceMemory();
});

// @open-wc registers its own cleanup only when a global afterEach exists; Vitest has none.
afterEach(() => {
  fixtureCleanup();
});

// The files share one page (decision 516): what a file left in it (a link it made to download
// from, a button beside a fixture) goes with the file, so the next one's axe sees only its own.
afterAll(() => {
  document.body.replaceChildren();
});
