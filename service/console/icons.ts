import { svg } from 'lit';

/** Thumbs as drawn icons: an emoji depends on the reader's fonts (and draws as a box without them). */
const thumb = (path: string) =>
  svg`<svg class="thumb" viewBox="0 0 24 24" width="14" height="14" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d=${path}></path></svg>`;
export const thumbUp = thumb(
  'M7 10v11H4V10h3zm0 0 4-7a2 2 0 0 1 3 2l-1 5h6a2 2 0 0 1 2 2.3l-1.4 7A2 2 0 0 1 17.6 21H7',
);
export const thumbDown = thumb(
  'M17 14V3h3v11h-3zm0 0-4 7a2 2 0 0 1-3-2l1-5H5a2 2 0 0 1-2-2.3l1.4-7A2 2 0 0 1 6.4 3H17',
);
