import type { Plugin } from 'vite';

/** The classic script with parts loaded beside it (see classic-chunks.mjs). */
export declare function classicChunks(options: { entryName: string }): Plugin;
