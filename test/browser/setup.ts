import { afterEach } from 'vitest';
import { fixtureCleanup } from '@open-wc/testing';

// @open-wc registers its own cleanup only when a global afterEach exists; Vitest has none.
afterEach(() => {
  fixtureCleanup();
});
