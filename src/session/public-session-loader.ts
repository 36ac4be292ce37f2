/**
 * The public session's module, loaded when a page first needs a public session: a chunk of the
 * ES build, and a part beside the classic script (scripts/classic-chunks.mjs, decision 330).
 */
export const loadPublicSession = () => import('./public-session.js');
