/** `agent-chat/loader` as an ES module: bundlers follow the import and emit the element as a chunk. */
import { defineLoader } from './loader.js';

defineLoader(() => import('./impl.js'));
