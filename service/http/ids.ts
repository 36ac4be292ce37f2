/** Unguessable ids: 128 random bits, prefixed by kind. */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const THREAD_ID = /^th_[0-9a-f]{32}$/;
export const ANSWER_ID = /^msg_[0-9a-f]{32}$/;
