/** A streaming answer's first characters are published this often: the visitor watches them arrive. */
export const FIRST_PUBLISH_INTERVAL_MS = 50;
/** However long the answer grows, it is published at least this often. */
export const LONGEST_PUBLISH_INTERVAL_MS = 150;
/** Characters of answer per millisecond added to the interval. */
const CHARACTERS_PER_MS = 100;

/**
 * How long a streaming answer `length` characters long waits between two publishes: 50 ms at
 * first, 1 ms more per 100 characters, 150 ms from 10,000 characters on (decision 405). Each
 * publish is a frame of render, style, layout and paint (about 6 ms on a 2-core machine) however
 * little it adds, while a visitor reads the first screen of an answer as it arrives and a long
 * one behind its front: a 10 KB answer takes about half the frames, a 200 KB one a third.
 */
export function publishInterval(length: number): number {
  return Math.min(LONGEST_PUBLISH_INTERVAL_MS, FIRST_PUBLISH_INTERVAL_MS + length / CHARACTERS_PER_MS);
}
