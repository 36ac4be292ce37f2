import { defineConfig } from 'vite';

/**
 * `agent-chat/server` (Fetch only) and `agent-chat/server/node`, for Node: never part of a
 * browser bundle. ES modules and CommonJS, so a `require()`ing server works too.
 */
export default defineConfig({
  build: {
    ssr: true,
    outDir: 'dist/server',
    emptyOutDir: false,
    copyPublicDir: false,
    target: 'node20',
    lib: {
      entry: { index: 'server/index.ts', node: 'server/node.ts' },
      formats: ['es', 'cjs'],
      fileName: (format, name) => `${name}.${format === 'es' ? 'js' : 'cjs'}`,
    },
  },
});
