// The loader as an ES module (the package root): bundlers follow the import and emit the
// element as a chunk. Where there is no DOM, defineLoader does nothing.
import { defineLoader } from './loader.js';

defineLoader(() => import('./impl.js'));
