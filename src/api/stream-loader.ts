import type { readChatStream } from './stream.js';

export interface StreamReader {
  readChatStream: typeof readChatStream;
}

/**
 * The stream reader, loaded with the first request rather than with the client: the package
 * root re-exports the client, and the loader's budget counts what the root imports statically.
 * The classic script has it in its first load instead (stream-loader.script.ts).
 */
export const loadStreamReader = (): Promise<StreamReader> => import('./stream.js');
