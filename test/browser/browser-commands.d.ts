import 'vitest/browser';
import type { PlatformFont } from '../browser-commands.js';

/** Commands the browser tests run in the test runner's process (vite.config.ts). */
declare module 'vitest/browser' {
  interface BrowserCommands {
    /** Emulates the visitor's motion preference for the rest of the run; default 'reduce'. */
    reduceMotion: (setting?: 'reduce' | 'no-preference') => Promise<void>;
    /** Emulates forced colours (Windows High Contrast) until set back to 'none'. */
    forcedColors: (setting: 'active' | 'none') => Promise<void>;
    /** The fonts the test frame's text was drawn with (test/browser-commands.ts). */
    platformFonts: () => Promise<PlatformFont[]>;
  }
}
