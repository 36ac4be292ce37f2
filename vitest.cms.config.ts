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
    fileParallelism: false,
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
