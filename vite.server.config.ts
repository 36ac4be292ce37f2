import { defineConfig } from 'vite';

/** The `agent-chat/server` entry, built for Node: never part of a browser bundle. */
export default defineConfig({
  build: {
    ssr: 'server/index.ts',
    outDir: 'dist/server',
    emptyOutDir: false,
    copyPublicDir: false,
    target: 'node20',
    rolldownOptions: { output: { entryFileNames: 'index.js' } },
  },
});
