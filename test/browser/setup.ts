import './quiet-lit-dev-mode.js';
import { afterEach, beforeEach } from 'vitest';
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
