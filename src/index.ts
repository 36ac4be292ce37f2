/**
 * The package root: safe to import anywhere. In a browser it registers `<agent-chat>` at once
 * through the loader (the element itself arrives on first interaction or when the page is
 * idle); where there is no DOM it only exports the DOM-free API.
 */
import './loader/entry.js';

export * from './dom-free.js';
