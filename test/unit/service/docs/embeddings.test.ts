import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';
import { Embedder, HybridDocs, embeddingText } from '../../../../service/docs/embeddings.js';
import { SectionIndex } from '../../../../service/docs/ranking.js';
import type { Section } from '../../../../service/docs/types.js';

/** Concepts of the scripted server: words that mean the same thing share a dimension. */
const CONCEPTS = [
  ['leave', 'exit', 'quit', 'close'],
  ['colour', 'color', 'palette', 'theme'],
  ['money', 'price', 'billing', 'invoice'],
];

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** An OpenAI-compatible /v1/embeddings server, scripted: a text's vector counts its concepts. */
async function embeddingsServer(status = 200) {
  const seen: { authorization?: string; body: { model: string; input: string[] } }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ authorization: req.headers.authorization, body });
      if (status !== 200) return res.writeHead(status).end('{"error":{"code":"down"}}');
      const data = (body.input as string[]).map((text, index) => ({
        index,
        embedding: CONCEPTS.map((words) => words.filter((w) => text.toLowerCase().includes(w)).length + 0.01),
      }));
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ data: data.reverse() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

const SECTIONS: Section[] = [
  ['Closing', 'Press Ctrl+Q to exit the application; unsaved work is kept.'],
  ['Appearance', 'Pick a palette in the settings to change the colour of the page.'],
  ['Plans', 'Billing happens monthly; every invoice is sent by email.'],
  ['Programs', 'A program runs until the visitor stops reading the docs.'],
].map(([heading, text]) => ({
  url: `https://docs.test/app#${heading.toLowerCase()}`,
  pageUrl: `https://docs.test/${heading.toLowerCase()}`,
  title: heading,
  headings: [heading],
  text,
}));

async function hybrid(status = 200) {
  const server = await embeddingsServer();
  const embedder = new Embedder({
    baseUrl: server.baseUrl,
    model: 'embed-small',
    apiKey: 'sk-test',
    batch: 3,
  });
  const vectors = await embedder.embed(SECTIONS.map(embeddingText));
  const errors: unknown[] = [];
  const failing =
    status === 200
      ? embedder
      : new Embedder({ baseUrl: (await embeddingsServer(status)).baseUrl, model: 'embed-small' });
  return {
    server,
    errors,
    docs: new HybridDocs(new SectionIndex(SECTIONS), SECTIONS, vectors, failing, (error) =>
      errors.push(error),
    ),
  };
}

describe('embeddings through an OpenAI-compatible /v1/embeddings', () => {
  it('embeds in batches with the model and key, and reads vectors by their index', async () => {
    const { server } = await hybrid();
    expect(server.seen.map((s) => s.body.input.length)).toEqual([3, 1]);
    expect(server.seen[0].body.model).toBe('embed-small');
    expect(server.seen[0].authorization).toBe('Bearer sk-test');
  });

  it('finds by meaning what the words alone miss, fused with the lexical ranking', async () => {
    const { docs } = await hybrid();
    const lexical = new SectionIndex(SECTIONS).search('how do I leave the program');
    expect(lexical[0].section.title).toBe('Programs');
    const hits = await docs.search('how do I leave the program');
    expect(
      hits
        .map((hit) => hit.section.title)
        .slice(0, 2)
        .sort(),
    ).toEqual(['Closing', 'Programs']);
    expect(hits.find((hit) => hit.section.title === 'Closing')!.match).toBe(0);
  });

  it('embeds a follow-up that refers back with the question it refers to, and a new subject alone', async () => {
    const { docs, server } = await hybrid();
    const asked = () => server.seen.at(-1)!.body.input;
    await docs.search('and how much is it?', 5, 'how do I change the theme');
    expect(asked()).toEqual(['how do I change the theme\nand how much is it?']);
    await docs.search('how much is the plan?', 5, 'how do I change the theme');
    expect(asked()).toEqual(['how much is the plan?']);
  });

  it('answers with the lexical ranking alone when the embeddings server fails', async () => {
    const { docs, errors } = await hybrid(503);
    const hits = await docs.search('how do I leave the program');
    expect(hits.map((hit) => hit.section.title)).toEqual(['Programs']);
    expect(String(errors[0])).toContain('503');
  });

  it('sends a request once more when the connection closed under it, and only once', async () => {
    // A server that drops the connection of the first `drops` requests without answering, as one
    // closing an idle keep-alive connection does when the request arrives.
    const dropping = async (drops: number) => {
      let requests = 0;
      const server = createServer((req, res) => {
        requests++;
        if (requests <= drops) return req.socket.destroy();
        req
          .resume()
          .on('end', () =>
            res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end(JSON.stringify({ data: [{ index: 0, embedding: [3, 4] }] })),
          );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => server.close());
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      return { embedder: new Embedder({ baseUrl, model: 'embed-small' }), requests: () => requests };
    };

    const once = await dropping(1);
    const [vector] = await once.embedder.embed(['exit']);
    expect(Array.from(vector)).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(once.requests()).toBe(2);

    const always = await dropping(Infinity);
    await expect(always.embedder.embed(['exit'])).rejects.toThrow();
    expect(always.requests()).toBe(2);

    // The caller's abort is never sent again.
    const aborted = await dropping(0);
    await expect(aborted.embedder.embed(['exit'], AbortSignal.abort())).rejects.toThrow();
    expect(aborted.requests()).toBe(0);
  });

  it("refuses a hostile server's answer past its size, or a vector past 8,192 numbers, without holding it", async () => {
    /** A server that answers every request with `answer(texts)` streamed in 1 MiB writes. */
    const hostile = async (answer: (texts: number) => Generator<string>) => {
      const server = createServer((req, res) => {
        let raw = '';
        req.on('data', (chunk) => (raw += chunk));
        req.on('end', async () => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          for (const part of answer(JSON.parse(raw).input.length))
            if (!res.write(part)) await new Promise((resolve) => res.once('drain', resolve));
          res.end();
        });
        res.on('error', () => {});
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => server.closeAllConnections());
      closers.push(() => server.close());
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      return new Embedder({ baseUrl, model: 'embed-small' });
    };
    const vector = (index: number) => JSON.stringify({ index, embedding: [3, 4] });
    // Valid JSON, one small vector per text, behind 64 MiB of white space (no Content-Length).
    const padded = await hostile(function* (texts) {
      for (let i = 0; i < 64; i++) yield ' '.repeat(1 << 20);
      yield JSON.stringify({ data: [] }).replace(
        '[]',
        `[${Array.from({ length: texts }, (_, i) => vector(i)).join(',')}]`,
      );
    });
    await expect(padded.embed(['exit'])).rejects.toThrow(/the embeddings server's answer is over/);

    // A vector of 100,000 numbers for one text: its JSON, 200 KB, is within the size.
    const wide = await hostile(function* () {
      yield JSON.stringify({ data: [{ index: 0, embedding: Array<number>(100_000).fill(1) }] });
    });
    await expect(wide.embed(['exit'])).rejects.toThrow('a vector of more than 8,192 numbers');
  });

  it('gives up an answer that drips for ever at its time limit, while garbage collections run', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    closers.push(() => server.closeAllConnections());
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const embedder = new Embedder({ baseUrl, model: 'embed-small', timeoutMs: 300 });
    // What a busy service does, and what took a timeout held only weakly before it fired (Node 20).
    setFlagsFromString('--expose-gc');
    const collect = setInterval(runInNewContext('gc') as () => void, 10);
    closers.push(() => clearInterval(collect));
    await expect(embedder.embed(['exit'])).rejects.toThrow('no answer within 300 ms');
  });

  it("gives each page's best section first after the fusion, then a page's second", async () => {
    const sections: Section[] = [
      ['app', 'Closing', 'Press Ctrl+Q to exit the application.'],
      ['app', 'Quitting', 'Quit the application from its menu: it will exit and close.'],
      ['windows', 'Windows', 'Close a window with its close button.'],
    ].map(([page, heading, text]) => ({
      url: `https://docs.test/${page}#${heading.toLowerCase()}`,
      pageUrl: `https://docs.test/${page}`,
      title: page,
      headings: [heading],
      text,
    }));
    const server = await embeddingsServer();
    const embedder = new Embedder({ baseUrl: server.baseUrl, model: 'embed-small' });
    const docs = new HybridDocs(
      new SectionIndex(sections),
      sections,
      await embedder.embed(sections.map(embeddingText)),
      embedder,
    );
    const hits = await docs.search('quit or exit the application');
    expect(hits.map((hit) => hit.section.url)).toEqual([
      'https://docs.test/app#quitting',
      'https://docs.test/windows#windows',
      'https://docs.test/app#closing',
    ]);
  });
});

describe("the library's embeddings duty", () => {
  const FOLDER = join(import.meta.dirname, '../../../fixtures/docs-site/docs');

  it('embeds every crawled section with the model after the crawl, and logs a failing server once, keeping none', async () => {
    const storage = memoryStores();
    const log: { msg: string }[] = [];
    const library = (baseUrl: string) =>
      new DocsLibrary({
        store: storage.docs,
        clock: new ManualClock(),
        readFolder: readDocsFolder,
        embedder: new Embedder({ baseUrl, model: 'embed-small', batch: 4 }),
        log: (entry) => log.push(entry),
      });
    const down = await embeddingsServer(503);
    const failing = library(down.baseUrl);
    await failing.addSource('proj_a', FOLDER);
    expect(await failing.tick()).toBe(1);
    expect((await storage.docs.listDocSections('proj_a')).every((s) => s.embedding === null)).toBe(true);
    expect(log.filter((e) => e.msg === 'docs_embeddings_failed')).toHaveLength(1);

    const up = await embeddingsServer();
    await library(up.baseUrl).tick();
    const sections = await storage.docs.listDocSections('proj_a');
    expect(sections.length).toBeGreaterThan(4);
    expect(sections.every((s) => s.embeddingModel === 'embed-small' && s.embedding?.length === 3)).toBe(true);
    // Each section's text sent once.
    expect(up.seen.flatMap((r) => r.body.input)).toHaveLength(sections.length);
  });
});
