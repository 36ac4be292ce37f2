/**
 * `dist/agent-chat.loader.iife.js`, the classic script: the element is fetched from the file
 * next to this script (the same CDN folder, or your own), whatever page loads it.
 */
import { defineLoader } from './loader.js';

const here = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href;
defineLoader(() => import(/* @vite-ignore */ new URL('agent-chat.impl.js', here).href));
