/**
 * pdf.js on a thread of its own (Node only, loaded when a PDF is first read). A few kilobytes of
 * forms that each draw the next one twice keep pdf.js busy for hours on one page, in promise
 * callbacks that never let the event loop run: in the service's thread, every visitor waited
 * and no timer could stop it. Here each step (opening the file, a page, its text, the metadata,
 * the outline) has `stepMs`; past it the thread is terminated, which stops even a loop that
 * never yields, and the step fails with `SlowPdf`. The thread's heap is bounded too, so is the
 * process's memory while it reads (`HeavyPdf`: decoded images are outside the heap), and so are
 * the threads at once. A thread that read its PDF to the end is kept for the next one a short
 * while (decision 764): starting one and loading pdf.js in it is most of a small PDF's time.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PdfDoc } from './pdf.js';

/** A step of reading a PDF took longer than its time. */
export class SlowPdf extends Error {
  override name = 'SlowPdf';
}

/** A read made the process's memory grow past its bound: its thread was terminated. */
export class HeavyPdf extends Error {
  override name = 'HeavyPdf';
}

/** What the thread's heap may grow to (pdf.js's decoded data is outside it: see `PDF_MEMORY_BYTES`). */
const HEAP_MB = 512;
/** How often the memory is looked at while PDFs are read: a decoder grows it by about 300 MB a second. */
const MEMORY_EVERY_MS = 20;
/** Threads at once, each with its heap and its PDF's decoded streams: other reads wait their turn. */
export const MAX_PDF_THREADS = 2;
/** How long a thread that read its PDF waits for the next one: a crawl's next PDF comes sooner. */
export const PDF_THREAD_IDLE_MS = 3_000;

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
  async close() {
    for (const page of pages.values()) page.cleanup();
    pages.clear();
    const done = doc;
    doc = undefined;
    if (done) await done.destroy();
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

/** A thread and its calls, each failing with SlowPdf (the thread terminated) past its `stepMs`. */
interface PdfThread {
  worker: Worker;
  call<T>(stepMs: number, name: string, ...args: unknown[]): Promise<T>;
  /** Why it answers no more (terminated, exited, an error of the thread's own); null while it does. */
  failure(): Error | null;
  /** Fails its calls with `error` and terminates it. */
  stop(error: Error): void;
}

let started = 0;
const alive = new Set<PdfThread>();
/** Threads that read their PDF to the end, each with the timer that ends it if no PDF comes. */
const idle = new Map<PdfThread, ReturnType<typeof setTimeout>>();

/** Threads started since the process began, those alive now, and the idle among them. */
export function pdfThreads(): { started: number; alive: number; idle: number } {
  return { started, alive: alive.size, idle: idle.size };
}

function startThread(): PdfThread {
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { unpdf: unpdf() },
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
  });
  started += 1;
  const waiting = new Map<number, Waiting>();
  let next = 0;
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  const stop = (error: Error) => {
    fail(error);
    void worker.terminate();
  };
  const call = <T>(stepMs: number, name: string, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = next++;
      const timer = setTimeout(
        () => stop(new SlowPdf(`A step of reading the PDF took more than ${stepMs} ms.`)),
        stepMs,
      );
      const settle = () => clearTimeout(timer);
      waiting.set(id, {
        resolve: (value) => (settle(), resolve(value as T)),
        reject: (error) => (settle(), reject(error)),
      });
      worker.postMessage({ id, call: name, args });
    });
  const thread: PdfThread = { worker, call, failure: () => failure, stop };
  alive.add(thread);
  // A reply to a call that already failed finds nothing waiting: the ids are the thread's own.
  worker.on('message', ({ id, value, error }: { id: number; value?: unknown; error?: Error }) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (error) w?.reject(Object.assign(new Error(error.message), { name: error.name }));
    else w?.resolve(value);
  });
  worker.on('error', fail);
  worker.on('exit', () => {
    alive.delete(thread);
    clearTimeout(idle.get(thread));
    idle.delete(thread);
    fail(new Error('The PDF thread stopped.'));
  });
  return thread;
}

/** The threads reading, each with the process's resident memory when its read began and its bound. */
const reading = new Map<PdfThread, { from: number; bound: number }>();
let watch: ReturnType<typeof setInterval> | null = null;

/**
 * Watches the process's memory while `thread` reads: past `bound` bytes more than now, the thread
 * is stopped. The process's, not the thread's (Node tells no thread's ArrayBuffers): two reads at
 * once both end when one of them passes it.
 */
function watchMemory(thread: PdfThread, bound: number) {
  reading.set(thread, { from: process.memoryUsage.rss(), bound });
  watch ??= setInterval(() => {
    const rss = process.memoryUsage.rss();
    for (const [reader, { from, bound }] of reading)
      if (rss - from > bound)
        reader.stop(new HeavyPdf(`Reading the PDF grew the memory by more than ${bound} bytes.`));
  }, MEMORY_EVERY_MS);
}

function unwatchMemory(thread: PdfThread) {
  reading.delete(thread);
  if (reading.size || !watch) return;
  clearInterval(watch);
  watch = null;
}

/** An idle thread that still answers, else a new one. */
function take(): PdfThread {
  for (const [thread, timer] of idle) {
    clearTimeout(timer);
    idle.delete(thread);
    if (thread.failure()) continue;
    thread.worker.ref();
    return thread;
  }
  return startThread();
}

/** Kept for the next PDF, for a while; an idle thread never keeps the process alive. */
function park(thread: PdfThread) {
  thread.worker.unref();
  const timer = setTimeout(() => {
    idle.delete(thread);
    void thread.worker.terminate();
  }, PDF_THREAD_IDLE_MS);
  (timer as { unref?: () => void }).unref?.();
  idle.set(thread, timer);
}

/**
 * The read is over. A thread that still answers, and closes its document within the step's
 * time, is kept; any other is ended, its turn with it once it has exited (two heaps at most).
 */
async function done(thread: PdfThread, release: () => void, stepMs: number) {
  unwatchMemory(thread);
  const closed = await thread.call(stepMs, 'close').then(
    () => true,
    () => false,
  );
  if (closed && !thread.failure()) park(thread);
  else await thread.worker.terminate();
  release();
}

/** Ends the threads kept idle (the service stopping, a crawl over); a thread reading goes on. */
export async function closeIdlePdfThreads(): Promise<void> {
  const threads = [...idle.keys()];
  for (const thread of threads) clearTimeout(idle.get(thread));
  idle.clear();
  await Promise.all(threads.map((thread) => thread.worker.terminate()));
}

/**
 * The document on a thread of its own: what readPdf asks of pdf.js, each step within `stepMs`,
 * the process's memory growing by `memoryBytes` at most while it is read.
 */
export async function openOnThread(
  bytes: Uint8Array,
  options: Record<string, unknown>,
  stepMs: number,
  memoryBytes: number,
): Promise<PdfDoc> {
  const release = await turn();
  let thread: PdfThread;
  try {
    thread = take();
  } catch (error) {
    // No thread: the turn ends here.
    release();
    throw error;
  }
  watchMemory(thread, memoryBytes);
  const call = <T>(name: string, ...args: unknown[]) => thread.call<T>(stepMs, name, ...args);
  let numPages: number;
  try {
    numPages = await call<number>('open', bytes.slice(), options);
  } catch (error) {
    await done(thread, release, stepMs);
    throw error;
  }
  let closing: Promise<void> | null = null;
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
    destroy: () => (closing ??= done(thread, release, stepMs)),
  };
}
