import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { deltas, hostileMarkdown, realisticMarkdown } from './markdown.mjs';

const SEP = '\u241E';
const record = (type, content, end = false) =>
  JSON.stringify({ chunk: { type, content, stream_end: end } }).replaceAll(SEP, '\\u241e') + SEP;

const ANSWERS = {
  'bench:10k': realisticMarkdown(10_000),
  'bench:200k': realisticMarkdown(200_000),
  'bench:short': 'A short answer with **one** bold word.',
  'bench:4k': realisticMarkdown(4_000),
  'bench:hostile': hostileMarkdown(),
};

/** Threads of 10 and 1,000 messages, answers of ~600 bytes of realistic markdown. */
const THREAD_SIZES = { th_10: 10, th_1000: 1000 };
const THREAD_TITLES = { th_10: 'A short conversation', th_1000: 'A long conversation' };

function longThreadRecord(id) {
  const text = realisticMarkdown(600);
  const messages = Array.from({ length: THREAD_SIZES[id] }, (_, i) => ({
    id: `${id}-m${i}`,
    role: i % 2 ? 'assistant' : 'user',
    content: i % 2 ? text : `Question number ${i / 2 + 1}?`,
    sources: [],
    created_at: '2026-11-21T09:00:00.000000Z',
    status: 'complete',
    ...(i % 2 ? { question_answer_id: `${id}-qa${i}` } : {}),
  }));
  return {
    id,
    title: THREAD_TITLES[id],
    created_at: '2026-11-21T09:00:00.000000Z',
    updated_at: '2026-11-21T09:00:00.000000Z',
    messages,
  };
}

/**
 * Each thread's body, made once: building 1,000 messages of markdown took this server 15-20 ms
 * per request, a cost of the stand-in (a real service reads stored rows) that the resume
 * figure would otherwise charge to the widget.
 */
const THREAD_BODIES = Object.fromEntries(
  Object.keys(THREAD_SIZES).map((id) => [id, JSON.stringify(longThreadRecord(id))]),
);

/** A content page with the launcher snippet pasted in (`iife`, `loader`, `es`) or without it (`none`). */
function hostPage(script) {
  const tag =
    {
      iife: '<script src="/agent-chat.iife.js"></script>',
      es: '<script type="module" src="/agent-chat.js"></script>',
      loader: '<script src="/agent-chat.loader.iife.js"></script>',
      none: '',
    }[script] ?? '';
  const text = Array.from(
    { length: 40 },
    (_, i) =>
      `<p>Paragraph ${i + 1} of an ordinary article page, the kind a site owner adds a chat launcher to.</p>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>${tag}</head><body><h1>Article</h1>${text}
${script === 'none' ? '' : '<agent-chat project-id="p" integration-id="i" session-endpoint="/session"></agent-chat>'}</body></html>`;
}

/**
 * The bench's service: a session endpoint and a chat that streams ~20-byte deltas every
 * `intervalMs`, paced by wall clock (writes that fall due together go out together, as on a
 * real network). Counts requests and records each stream's own duration.
 */
export async function startBenchServer({ intervalMs = 2 } = {}) {
  const counts = { session: 0, chat: 0 };
  const streams = [];
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>bench</title>
<script type="module" src="/agent-chat.js"></script></head><body>
<agent-chat mode="inline" project-id="p" integration-id="i" session-endpoint="/session"></agent-chat></body></html>`;

  const baseline = `<!doctype html><html><head><meta charset="utf-8"><title>baseline</title></head><body>
<p>Reads the chat stream with fetch and throws it away: the floor any widget pays.</p></body></html>`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    if (url.pathname === '/baseline')
      return res.writeHead(200, { 'Content-Type': 'text/html' }).end(baseline);
    if (url.pathname.startsWith('/host/'))
      return res.writeHead(200, { 'Content-Type': 'text/html' }).end(hostPage(url.pathname.slice(6)));
    // dist/*.js: the entries and the chunks the ES entry imports.
    if (/^\/[\w.-]+\.js$/.test(url.pathname) && existsSync(`dist${url.pathname}`)) {
      return res
        .writeHead(200, { 'Content-Type': 'text/javascript' })
        .end(readFileSync(`dist${url.pathname}`));
    }
    if (url.pathname === '/favicon.ico') return res.writeHead(204).end();
    if (url.pathname === '/session') {
      counts.session += 1;
      return res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ token: `t${counts.session}`, expiresAt: Date.now() + 3_600_000 }));
    }
    if (url.pathname === '/agent/v1/projects/p/agent/threads/') {
      const threads = Object.keys(THREAD_SIZES).map((id) => ({
        id,
        title: THREAD_TITLES[id],
        created_at: '2026-11-21T09:00:00.000000Z',
        updated_at: '2026-11-21T09:00:00.000000Z',
      }));
      return res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ threads, next_cursor: null }));
    }
    const thread = /^\/agent\/v1\/projects\/p\/agent\/threads\/(th_\d+)\/$/.exec(url.pathname)?.[1];
    if (thread && THREAD_SIZES[thread]) {
      return res.writeHead(200, { 'Content-Type': 'application/json' }).end(THREAD_BODIES[thread]);
    }
    if (url.pathname === '/agent/v1/projects/p/agent/chat/') {
      counts.chat += 1;
      let body = '';
      for await (const chunk of req) body += chunk;
      const { message, thread_id: threadId } = JSON.parse(body);
      const parts = deltas(ANSWERS[message] ?? ANSWERS['bench:short']);
      const thread = threadId ?? 'th_bench';
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.write(record('stream_start', { thread_id: thread, question_answer_id: `qa${counts.chat}` }));
      const started = performance.now();
      let sent = 0;
      await new Promise((resolve) => {
        const tick = () => {
          const due = Math.min(parts.length, Math.floor((performance.now() - started) / intervalMs) + 1);
          while (sent < due) res.write(record('partial_answer', { text: parts[sent++] }));
          if (sent < parts.length) setTimeout(tick, 1);
          else resolve();
        };
        tick();
      });
      streams.push({
        chunks: parts.length,
        bytes: parts.join('').length,
        durationMs: performance.now() - started,
      });
      return res.end(
        record('identifiers', { thread_id: thread, question_answer_id: `qa${counts.chat}` }, true),
      );
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    counts,
    streams,
    close: () => new Promise((r) => server.close(r)),
  };
}
