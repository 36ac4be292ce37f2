import { defineConfig, type Plugin } from 'vite';
import { markedLexerOnly } from '../../scripts/marked-lexer-only.mjs';

const root = import.meta.dirname;

/**
 * The conversation view renders answers with the widget's markdown (src/markdown/), whose words
 * come from the widget's English: the other languages' loaders have nothing to do here, and
 * would only add their chunks to the folder.
 */
function englishOnly(): Plugin {
  const id = '\0console-locale-loaders';
  return {
    name: 'console-english-only',
    enforce: 'pre',
    resolveId: (source, importer) =>
      source === './locale-loaders.js' && /[\\/]src[\\/]i18n[\\/]/.test(importer ?? '') ? id : null,
    load: (source) => (source === id ? 'export const loaders = {};' : null),
  };
}

/** The console's pages (Lit + uPlot; the widget's markdown with a conversation), built into the service's dist/console and served at /console/. */
export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  plugins: [markedLexerOnly(), englishOnly()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    // Served from disk with the page's CSP: no inline module preload polyfill, no data: URLs.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
