/**
 * The public session's module, loaded when a page first needs a public session. The classic
 * script swaps this file for public-session-loader.script.ts (an IIFE cannot split chunks).
 */
export const loadPublicSession = () => import('./public-session.js');
