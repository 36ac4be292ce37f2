import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import type { BrowserCommand } from 'vitest/node';
import { chromiumLaunchOptions, pinnedFontconfig } from './scripts/chromium.mjs';
import { demoServices } from './demo/services.js';
import { markedLexerOnly } from './scripts/marked-lexer-only.mjs';
import { platformFonts } from './test/browser-commands.js';
import { minifyCssTemplates } from './scripts/minify-css-templates.mjs';
import { classicChunks } from './scripts/classic-chunks.mjs';

const CLASSIC_ENTRY = 'agent-chat.iife.js';

/** @open-wc/testing imports a web-test-runner-only module; under Vite it has nothing to talk to. */
function stubWtrWebSocket(): Plugin {
  const id = '\0wtr-ws-stub';
  return {
    name: 'stub-wtr-websocket',
    enforce: 'pre',
    resolveId: (source) => (source.endsWith('__web-dev-server__web-socket.js') ? id : null),
    load: (source) =>
      source === id
        ? 'export function sendMessageWaitForResponse(){throw new Error("WTR commands unavailable under vitest")}'
        : null,
  };
}

const chromium = playwright({
  launchOptions: {
    ...chromiumLaunchOptions(),
    // Chromium asks fontconfig how to draw every font, web fonts included: pin those settings.
    env: {
      ...process.env,
      FONTCONFIG_FILE: pinnedFontconfig(
        fileURLToPath(new URL('./node_modules/.cache/agent-chat-fontconfig', import.meta.url)),
      ),
    },
  },
  // Larger than any viewport a test sets, so the runner never scales the test frame down and
  // screenshots keep the frame's own pixels.
  contextOptions: { viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 },
  // A click or a key that waits for an element that never comes fails here, naming its locator
  // and what it waited for, rather than as an anonymous test timeout (15 s). Polls end at 5 s.
  actionTimeout: 10_000,
});

/**
 * Screenshots are taken with motion off, as a visitor who asked for less motion sees the widget;
 * motion tests set what they need ('no-preference'), since the setting outlives a test file.
 */
const reduceMotion: BrowserCommand<[setting?: 'reduce' | 'no-preference']> = async (
  context,
  setting = 'reduce',
) => {
  if (context.provider.name === 'playwright')
    await (context as unknown as { page: { emulateMedia(o: object): Promise<void> } }).page.emulateMedia({
      reducedMotion: setting,
    });
};

/** Emulates Windows High Contrast ('active') or ends it ('none'); like motion, it outlives a test. */
const forcedColors: BrowserCommand<[setting: 'active' | 'none']> = async (context, setting) => {
  if (context.provider.name === 'playwright')
    await (context as unknown as { page: { emulateMedia(o: object): Promise<void> } }).page.emulateMedia({
      forcedColors: setting,
    });
};

/** What the browser projects share: a headless Chromium, the commands, the screenshot baselines. */
const browserProject = (name: string) => ({
  name,
  setupFiles: ['test/browser/setup.ts'],
  browser: {
    enabled: true,
    headless: true,
    provider: chromium,
    instances: [{ browser: 'chromium' as const, name: `${name} (chromium)` }],
    screenshotFailures: false,
    commands: { reduceMotion, forcedColors, platformFonts },
    // Baselines live in a committed folder (__screenshots__ is gitignored); refresh them on
    // purpose with `npm run test:visual:update`.
    expect: {
      toMatchScreenshot: {
        comparatorName: 'pixelmatch' as const,
        comparatorOptions: { threshold: 0.2, allowedMismatchedPixelRatio: 0.01 },
        resolveScreenshotPath: ({ root, arg, ext }: { root: string; arg: string; ext: string }) =>
          `${root}/test/browser/visual/baselines/${arg}${ext}`,
      },
    },
  },
});

/** Comments and layout whitespace out of Lit's css`` templates in the build (see the script). */
function minifyCss(): Plugin {
  return {
    name: 'minify-css-templates',
    apply: 'build',
    enforce: 'pre',
    transform: (code, id) =>
      /\/src\/.*\.styles\.ts$/.test(id) ? { code: minifyCssTemplates(code), map: null } : null,
  };
}

const LOCALES = ['ar', 'de', 'es', 'fr', 'he', 'it', 'ja', 'ko', 'nl', 'pl', 'pt', 'sv', 'tr', 'zh'];

/**
 * Modules the classic script swaps for its own: it loads locales by URL instead of inlining all
 * 14, and has the stream reader in its first load instead of a part.
 */
const SCRIPT_MODULES: Record<string, [folder: string, swap: string]> = {
  './locale-loaders.js': ['/src/i18n/', './src/i18n/locale-loaders.script.ts'],
  './stream-loader.js': ['/src/api/', './src/api/stream-loader.script.ts'],
};

function scriptModules(): Plugin {
  return {
    name: 'script-modules',
    enforce: 'pre',
    resolveId: (source, importer) => {
      const [folder, swap] = SCRIPT_MODULES[source] ?? [];
      return swap && importer?.includes(folder) ? fileURLToPath(new URL(swap, import.meta.url)) : null;
    },
  };
}

export default defineConfig(({ mode }) => ({
  // The browser tests keep the real services out: a request without an msw handler must fail.
  plugins: [
    demoServices(),
    stubWtrWebSocket(),
    markedLexerOnly(),
    minifyCss(),
    ...(mode === 'iife' ? [scriptModules(), classicChunks({ entryName: CLASSIC_ENTRY })] : []),
  ],
  // 5173 (4173 for preview) when free, else the next free port, printed: a port another process
  // holds never stops the demo, and Vitest's browser server (which inherits this block) picks
  // its own.
  server: process.env.VITEST
    ? { host: '127.0.0.1', open: false }
    : { host: '127.0.0.1', port: 5173, open: false },
  preview: { host: '127.0.0.1', port: 4173, open: false },
  // Four builds (`vite build`, `--mode iife`, `--mode loader-iife`, `--mode cjs`): an IIFE cannot
  // share chunks with the ES build.
  build: {
    copyPublicDir: false,
    ...(mode === 'iife'
      ? {
          rolldownOptions: {
            // The entry may gain exports, so the code its parts share stays in it (a library
            // build keeps entry signatures strict, which put that code in a chunk of its own).
            preserveEntrySignatures: 'allow-extension' as const,
            // Minified like the IIFE was (an ES library build keeps its whitespace by default);
            // the parts are named for what they hold and their content.
            output: { minify: true, chunkFileNames: 'agent-chat.part.[name]-[hash].js' },
          },
        }
      : {}),
    emptyOutDir: mode === 'production',
    lib: {
      // The classic script: built as split ES modules and turned back into a classic script
      // with its parts beside it (scripts/classic-chunks.mjs); it sets the global AgentChat itself.
      iife: {
        entry: 'src/iife.ts',
        formats: ['es' as const],
        fileName: () => CLASSIC_ENTRY,
      },
      // The loader as a classic script; it fetches agent-chat.impl.js from beside itself.
      'loader-iife': {
        entry: 'src/loader/script.ts',
        name: 'AgentChatLoader',
        formats: ['iife' as const],
        fileName: () => 'agent-chat.loader.iife.js',
      },
      // require('agent-chat'): the DOM-free API, for CommonJS servers; it registers nothing.
      cjs: { entry: 'src/dom-free.ts', formats: ['cjs' as const], fileName: () => 'agent-chat.cjs' },
      // The root is the loader plus the DOM-free API; the element is agent-chat.impl.js, which the
      // classic-script loader also fetches by that name.
      // Each locale is also an entry with a stable name, which the classic script imports by URL;
      // so is the public session's proof of work (bench/proof-of-work.mjs loads it by name).
      production: {
        entry: {
          'agent-chat': 'src/index.ts',
          'agent-chat.impl': 'src/loader/impl.ts',
          'agent-chat.public-session': 'src/session/public-session.ts',
          // The attachment view, imported when a visitor first attaches: an entry for a stable name.
          'agent-chat.attachments': 'src/components/attachments/kit.ts',
          ...Object.fromEntries(LOCALES.map((l) => [`agent-chat.locale.${l}`, `src/i18n/locales/${l}.ts`])),
        },
        formats: ['es' as const],
        fileName: (_format: string, name: string) => `${name}.js`,
      },
    }[mode] ?? { entry: 'src/index.ts' },
  },
  test: {
    reporters: ['default', './test/plain-summary-reporter.ts'],
    // Polls end as soon as they pass; the longer ceiling only matters on a loaded machine.
    expect: { poll: { timeout: 5_000 } },
    // A guard against hangs, not a speed assertion: a scrypt sign-in or a first PGlite open
    // takes seconds on a loaded 2-core machine, and a test that polls up to 5 s needs room.
    testTimeout: 15_000,
    projects: [
      // One module graph per worker, not per file: the unit files import the same service and
      // widget modules, and the PGlite a storage suite opens is shared by the next file (each
      // test still gets a schema of its own). Measured on 121 files: 96 s of CPU instead of 286.
      {
        extends: true,
        test: { name: 'unit', environment: 'node', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      // The built artifacts (npm test builds first): script-tag page, strict CSP, manifest, size.
      // Vitest gives a run as many workers as the machine has cores less one: on two cores, one,
      // and these files (a service, a program or a Chromium each, waiting on them more than
      // working) ran one after another, 500 s of the run's 650. They run after the unit and
      // browser files, two at a time on two cores (decisions 508, 517: a third made each slower).
      {
        extends: true,
        test: {
          name: 'dist',
          environment: 'node',
          include: ['test/dist/**/*.test.ts'],
          testTimeout: 30_000,
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      // One page for all the browser files, as the unit files share a worker (decision 516): each
      // file's fresh page re-imported the widget's few hundred modules, about 2.5 s of a file's 3.
      {
        extends: true,
        test: {
          ...browserProject('browser'),
          include: ['test/browser/**/*.test.ts'],
          exclude: ['test/browser/first-load/**'],
          isolate: false,
        },
      },
      // What a page sees as it first loads the element needs a page that has not: its own.
      {
        extends: true,
        test: {
          ...browserProject('browser-first-load'),
          include: ['test/browser/first-load/**/*.test.ts'],
        },
      },
    ],
  },
}));
