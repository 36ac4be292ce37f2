import { readChatStream } from './stream.js';
import type { StreamReader } from './stream-loader.js';

/**
 * The classic script's stream reader (see stream-loader.ts): in its first load, so answering
 * never waits for, or fails on, a part a site may not serve beside the script.
 */
export const loadStreamReader = (): Promise<StreamReader> => Promise.resolve({ readChatStream });
