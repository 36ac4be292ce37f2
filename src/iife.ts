/**
 * The classic-script build (`<script src>`): registers at once and exposes the API as
 * `globalThis.AgentChat`. No top-level await here; an IIFE cannot have one.
 */
export * from './element.js';
export * from './api.js';
