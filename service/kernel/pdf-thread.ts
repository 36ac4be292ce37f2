/**
 * pdf.js on a thread of its own (Node only, loaded when a PDF is first read). A few kilobytes of
 * forms that each draw the next one twice keep pdf.js busy for hours on one page, in promise
 * callbacks that never let the event loop run: in the service's thread, every visitor waited
 * and no timer could stop it. Here each step (opening the file, a page, its text, the metadata,
 * the outline) has `stepMs`; past it the thread is terminated, which stops even a loop that
 * never yields, and the step fails with `SlowPdf`. The thread's heap is bounded too, and so are
 * the threads at once.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PdfDoc } from './pdf.js';

/** A step of reading a PDF took longer than its time. */
export class SlowPdf extends Error {
  override name = 'SlowPdf';
}

/** What the thread's heap may grow to (pdf.js's decoded streams, outside it, are bounded by the guard). */
const HEAP_MB = 512;
/** Threads at once, each with its heap and its PDF's decoded streams: other reads wait their turn. */
export const MAX_PDF_THREADS = 2;

let running = 0;
const turns: (() => void)[] = [];

/** Waits for a thread's turn; the function given back ends it (once, however often it is called). */
async function turn(): Promise<() => void> {
  if (running >= MAX_PDF_THREADS) await new Promise<void>((resolve) => turns.push(resolve));
  else running += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const next = turns.shift();
    if (next) next();
    else running -= 1;
  };
}

/** The thread: the same calls readPdf makes of pdf.js's document, answered by message. */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let doc;
const pages = new Map();
const calls = {
  async open(bytes, options) {
    const { getDocumentProxy } = await import(workerData.unpdf);
    doc = await getDocumentProxy(bytes, options);
    return doc.numPages;
  },
  async page(n) {
    const page = await doc.getPage(n);
    pages.set(n, page);
    return page.view;
  },
  async text(n) {
    const content = await pages.get(n).getTextContent();
    return { items: content.items, styles: content.styles };
  },
  cleanup(n) {
    pages.get(n)?.cleanup();
    pages.delete(n);
  },
  async metadata() {
    const { info, metadata } = await doc.getMetadata();
    return { title: info && info.Title, dcTitle: metadata ? metadata.get('dc:title') : null };
  },
  outline: () => doc.getOutline(),
  destination: (name) => doc.getDestination(name),
  pageIndex: (ref) => doc.getPageIndex(ref),
};
parentPort.on('message', async ({ id, call, args }) => {
  try {
    parentPort.postMessage({ id, value: await calls[call](...args) });
  } catch (error) {
    parentPort.postMessage({ id, error: { name: (error && error.name) || 'Error', message: String(error && error.message) } });
  }
});`;

const unpdf = () => pathToFileURL(createRequire(import.meta.url).resolve('unpdf')).href;

type Waiting = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** The thread and a call to it that fails with SlowPdf (the thread terminated) past `stepMs`. */
function startThread(stepMs: number, release: () => void) {
  let worker: Worker;
  try {
    worker = new Worker(SOURCE, {
      eval: true,
      workerData: { unpdf: unpdf() },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
  } catch (error) {
    // No thread, no 'exit': the turn ends here.
    release();
    throw error;
  }
  const waiting = new Map<number, Waiting>();
  let next = 0;
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  worker.on('message', ({ id, value, error }: { id: number; value?: unknown; error?: Error }) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (error) w?.reject(Object.assign(new Error(error.message), { name: error.name }));
    else w?.resolve(value);
  });
  worker.on('error', fail);
  worker.on('exit', () => {
    release();
    fail(new Error('The PDF thread stopped.'));
  });
  const call = <T>(name: string, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = next++;
      const timer = setTimeout(() => {
        fail(new SlowPdf(`A step of reading the PDF took more than ${stepMs} ms.`));
        void worker.terminate();
      }, stepMs);
      const settle = () => clearTimeout(timer);
      waiting.set(id, {
        resolve: (value) => (settle(), resolve(value as T)),
        reject: (error) => (settle(), reject(error)),
      });
      worker.postMessage({ id, call: name, args });
    });
  return { worker, call };
}

/** The document on a thread of its own: what readPdf asks of pdf.js, each step within `stepMs`. */
export async function openOnThread(
  bytes: Uint8Array,
  options: Record<string, unknown>,
  stepMs: number,
): Promise<PdfDoc> {
  const { worker, call } = startThread(stepMs, await turn());
  // Its turn ends when the thread has exited (the 'exit' listener).
  const close = () => worker.terminate().then(() => {});
  let numPages: number;
  try {
    numPages = await call<number>('open', bytes.slice(), options);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    numPages,
    async getPage(n) {
      const view = await call<number[]>('page', n);
      return {
        view,
        getTextContent: () => call('text', n),
        cleanup: () => void call('cleanup', n).catch(() => {}),
      };
    },
    async getMetadata() {
      const { title, dcTitle } = await call<{ title: unknown; dcTitle: unknown }>('metadata');
      return { info: { Title: title }, metadata: { get: () => dcTitle } };
    },
    getOutline: () => call('outline'),
    getDestination: (name) => call('destination', name),
    getPageIndex: (ref) => call('pageIndex', ref),
    destroy: close,
  };
}
