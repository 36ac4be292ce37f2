import { defineConfig } from 'vite';

/**
 * The `agent-chat-service` package and its program, built for Node (never for a browser). The
 * wire vocabulary (../contract) and what it shares of the server helpers (../server: the client
 * address, a Node request as a Fetch Request) are bundled in, so the package needs nothing of
 * `agent-chat`; its own dependencies stay external.
 */
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist',
    emptyOutDir: true,
    copyPublicDir: false,
    target: 'node20',
    rolldownOptions: {
      input: { index: 'node.ts', cli: 'cli.ts' },
      output: {
        entryFileNames: '[name].js',
        banner: (chunk) => (chunk.name === 'cli' ? '#!/usr/bin/env node' : ''),
      },
    },
  },
});
