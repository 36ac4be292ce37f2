/** The attachment kit: a chunk of the ES build, and a part beside the classic script (scripts/classic-chunks.mjs). */
export const importKit = (): Promise<typeof import('./kit.js')> => import('./kit.js');
