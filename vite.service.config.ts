import { defineConfig } from 'vite';

/** `agent-chat/service` and the `agent-chat-service` program, built for Node (never for a browser). */
export default defineConfig({
  build: {
    ssr: true,
    outDir: 'dist/service',
    emptyOutDir: false,
    copyPublicDir: false,
    target: 'node20',
    rolldownOptions: {
      input: { index: 'service/node.ts', cli: 'service/cli.ts' },
      output: { entryFileNames: '[name].js', banner: (chunk) => (chunk.name === 'cli' ? '#!/usr/bin/env node' : '') },
    },
  },
});
