// Bundled the way wrangler resolves packages (workerd, worker, browser conditions), with
// nothing external: a Node built-in anywhere in the graph fails the build.
export default {
  resolve: { conditions: ['workerd', 'worker', 'browser', 'import', 'default'] },
  build: {
    outDir: 'dist',
    minify: false,
    lib: { entry: 'worker.js', formats: ['es'], fileName: () => 'worker.js' },
    rolldownOptions: { external: [], platform: 'neutral' },
  },
};
