import { defineConfig } from 'vitest/config';

/**
 * The suites that run real PHP, Python, MariaDB and WordPress (Debian's packages, which
 * scripts/ensure-packages.mjs installs): `npm run test:examples` and `npm run test:wordpress`.
 * Apart from vite.config.ts so that `npm test` never needs them.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/plain-summary-reporter.ts'],
    // One site, one service, one browser per file, and the cases run in order against them.
    // The two files (`npm run test:cms`) run side by side: each mostly waits on its own PHP,
    // MariaDB and Chromium processes, so two at once on two cores took the longer one's time
    // instead of the sum (Vitest's default is one worker fewer than the cores: one, here).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: { name: 'examples', environment: 'node', include: ['test/examples/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'wordpress', environment: 'node', include: ['test/wordpress/**/*.test.ts'] },
      },
    ],
  },
});
