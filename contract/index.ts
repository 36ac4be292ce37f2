/**
 * The wire vocabulary, once: what the widget, the server helpers and the service all say on
 * the wire (docs/protocol.md). Plain types and constants, no DOM and no Node, so every side
 * imports it as is.
 */
export * from './types.js';
export * from './activity.js';
export * from './limits.js';
export * from './paths.js';
export * from './records.js';
export { ownerKey } from './owner-key.js';
