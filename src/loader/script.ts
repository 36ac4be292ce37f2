/**
 * `dist/agent-chat.loader.iife.js`, the classic script: the element is fetched from the file
 * next to this script (the same CDN folder, or your own), whatever page loads it. A tag that
 * carries the chat's settings as data-* adds the chat itself (one-tag.ts).
 */
import { defineLoader } from './loader.js';
import { addFromTag } from './one-tag.js';

const tag = document.currentScript as HTMLScriptElement | null;
const here = tag?.src ?? location.href;
defineLoader(() => import(/* @vite-ignore */ new URL('agent-chat.impl.js', here).href));
addFromTag(tag);
