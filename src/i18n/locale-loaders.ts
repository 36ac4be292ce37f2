import type { UiStrings } from './en.js';

/**
 * Bundled locales, each its own module so that only the active one is loaded: English is in the
 * first load, every other locale arrives on demand. The classic-script build swaps this file for
 * locale-loaders.script.ts (an IIFE cannot split chunks; it would inline all of them).
 */
export const loaders: Record<string, () => Promise<{ default: UiStrings }>> = {
  ar: () => import('./locales/ar.js'),
  de: () => import('./locales/de.js'),
  es: () => import('./locales/es.js'),
  fr: () => import('./locales/fr.js'),
  he: () => import('./locales/he.js'),
  it: () => import('./locales/it.js'),
  ja: () => import('./locales/ja.js'),
  ko: () => import('./locales/ko.js'),
  nl: () => import('./locales/nl.js'),
  pl: () => import('./locales/pl.js'),
  pt: () => import('./locales/pt.js'),
  sv: () => import('./locales/sv.js'),
  tr: () => import('./locales/tr.js'),
  zh: () => import('./locales/zh.js'),
};
