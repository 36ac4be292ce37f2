import { solidPng } from '../fixtures/files.js';
import type { Source } from '../../contract/types.js';
import { messageRecord } from '../fixtures/records.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionHandler, toNodeHandler } from '../../server/node.js';
import { serveFolder } from '../../scripts/static-site.mjs';
import { DocsLibrary, systemClock } from '../../service/index.js';
import { readDocsFolder } from '../../service/docs/folder.js';
import {
  DemoAgent,
  memoryStores,
  createAgentService,
  nodeConsole,
  nodeWidgetRelease,
  scryptPasswords,
  serve,
  type RunningService,
  type Stores,
} from '../../service/node.js';
import type { AnswerFailure } from '../../service/index.js';

export const ADMIN = { username: 'ada', password: 'correct horse battery staple' };
export const PROJECT = {
  id: 'proj_docs',
  apiKey: 'key-start-up-not-secret',
  integrationIds: ['int_docs', 'int_app'],
};
const DAY = 86_400_000;
const FIXTURES = join(import.meta.dirname, '../fixtures');

/**
 * The service with its console, from source, on a free port: the built pages
 * (service/dist/console) served by the real program's code, a store seeded with 30 days of
 * activity and a few real conversations, and one admin.
 */
export async function startConsoleService(): Promise<{
  url: string;
  storage: Stores;
  running: RunningService;
  requests: { method: string; path: string; status: number }[];
}> {
  const storage = memoryStores();
  // The Sources page's docs: the crawler's fixture site (a failing, a missing and a too large
  // page among them) and the same pages as a folder without its private/ pages, crawled before
  // the pages are shown.
  const site = await serveFolder(join(FIXTURES, 'docs-site'), {
    routes: {
      '/docs/broken.html': (_req, res) => res.writeHead(500).end(),
      '/docs/huge.html': (_req, res) =>
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('x'.repeat(3_000_000)),
    },
  });
  const docs = new DocsLibrary({
    store: storage.docs,
    clock: systemClock,
    readFolder: readDocsFolder,
    network: { allowPrivate: true },
    crawl: { retryDelayMs: 1 },
  });
  const service = createAgentService({
    projects: [PROJECT],
    storage,
    docs,
    agent: new DemoAgent({ wordDelayMs: 0 }),
    console: await nodeConsole(),
    widget: await nodeWidgetRelease(),
    rateLimit: false,
    activityStalenessMs: 0,
    // The Notifications tests' receivers are on this machine, as a local operator's would be.
    allowPrivateWebhooks: true,
  });
  await storage.accounts.createAdmin({
    username: ADMIN.username,
    passwordHash: await scryptPasswords.hash(ADMIN.password),
    createdAt: Date.now(),
  });
  const requests: { method: string; path: string; status: number }[] = [];
  const running = await serve(service, {
    port: 0,
    log: (e) =>
      e.msg === 'request' &&
      requests.push({ method: String(e.method), path: String(e.path), status: Number(e.status) }),
  });
  // The seeded chats are about the widget: asked before the project has docs of its own, the
  // demo agent answers them from the widget's bundled articles, as the pages expect.
  await seed(running.url, storage, `${site.url}/docs/guide/install.html#requirements`);
  await docs.addSource(PROJECT.id, `${site.url}/docs/`);
  // Relative to the repository (where the tests run): no machine's path in the screenshots.
  await docs.addSource(PROJECT.id, 'test/fixtures/docs-site/docs', 'https://acme.example/docs', [
    '/private/',
  ]);
  await docs.tick();
  const close = running.close;
  running.close = async () => {
    await close();
    await site.close();
  };
  return { url: running.url, storage, running, requests };
}

/** A month of plausible traffic (weekdays busier), then real chats with feedback, an error and a handoff. */
async function seed(url: string, storage: Stores, changedPage: string) {
  const today = Math.floor(Date.now() / DAY) * DAY;
  let n = 0;
  for (let d = 29; d >= 1; d--) {
    const day = today - d * DAY;
    const weekday = new Date(day).getUTCDay() % 6 !== 0;
    const sessions = (weekday ? 14 : 5) + ((d * 7) % 9);
    for (let s = 0; s < sessions; s++) {
      const token = `seed_${++n}`;
      const owner = s % 3 === 0 ? null : `visitor-${s % 17}`;
      const integrationId = s % 4 === 0 ? 'int_app' : 'int_docs';
      const at = day + 9 * 3_600_000 + s * 600_000;
      await storage.activity.recordActivity({
        kind: 'session',
        projectId: PROJECT.id,
        at,
        sessionToken: token,
        owner,
        integrationId: null,
      });
      await storage.activity.recordActivity({
        kind: 'thread',
        projectId: PROJECT.id,
        at,
        sessionToken: token,
        owner,
        integrationId,
      });
      for (let m = 0; m < 2 + (s % 3) * 2; m++)
        await storage.activity.recordActivity({
          kind: 'message',
          projectId: PROJECT.id,
          at,
          sessionToken: token,
          owner,
          integrationId,
        });
      // Now and then a model call failed: the answer counts as a message and as a failure.
      if (s % 9 === 4)
        await storage.activity.recordActivity({
          kind: 'failed',
          projectId: PROJECT.id,
          at,
          sessionToken: token,
          owner,
          integrationId,
        });
      await storage.activity.recordActivity({
        kind: 'usage',
        projectId: PROJECT.id,
        at,
        sessionToken: token,
        owner,
        integrationId,
        promptTokens: 900 + s * 37,
        completionTokens: 180 + s * 11,
      });
      if (s % 5 === 1) {
        const threadId = `th_${String(n).padStart(32, '0')}`;
        const messageId = `msg_${String(n).padStart(32, '0')}`;
        await storage.conversations.createThread({
          id: threadId,
          projectId: PROJECT.id,
          integrationId,
          owner,
          title: 'Earlier question',
          createdAt: at,
          updatedAt: at,
        });
        await storage.conversations.appendMessage(
          threadId,
          messageRecord({ id: messageId, role: 'assistant', content: 'An earlier answer.', createdAt: at }),
        );
        await storage.conversations.putFeedback({
          messageId,
          projectId: PROJECT.id,
          voter: `session:${token}`,
          sessionToken: token,
          owner,
          integrationId,
          reaction: s % 2 ? 'upvote' : 'downvote',
          comment: null,
          at,
        });
      }
    }
  }
  const agent = `${url}/agent/v1/projects/${PROJECT.id}/agent`;
  const chat = async (owner: string, message: string, integration = 'int_docs') => {
    const minted = await (
      await fetch(`${agent}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: owner }),
      })
    ).json();
    const body = await (
      await fetch(`${agent}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${minted.session_token}` },
        body: JSON.stringify({ integration_id: integration, message }),
      })
    ).text();
    const threadId = /"thread_id":"(th_[0-9a-f]{32})"/.exec(body)![1];
    const thread = await (
      await fetch(`${agent}/threads/${threadId}/`, {
        headers: { Authorization: `Bearer ${minted.session_token}` },
      })
    ).json();
    return { token: minted.session_token as string, threadId, answerId: thread.messages[1].id as string };
  };
  await chat('alice@example.com', 'How do I theme the widget?');
  const xss = await chat('bob@example.com', 'Is the widget safe against XSS?', 'int_app');
  await fetch(`${agent}/feedback/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${xss.token}` },
    body: JSON.stringify({
      question_answer_id: xss.answerId,
      reaction: 'downvote',
      comment: { unaddressed: true, issue: 'I asked about Content-Security-Policy, not markdown.' },
    }),
  });
  await storage.conversations.markHandoff(xss.threadId, Date.now());
  const react = await chat('carol@example.com', 'Can I use it with React?');
  await fetch(`${agent}/feedback/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${react.token}` },
    body: JSON.stringify({ question_answer_id: react.answerId, reaction: 'upvote' }),
  });
  await chat('alice@example.com', 'What does the session endpoint return?');
  await chatWithFiles(agent);
  // An answer whose markdown carries HTML and a script link: the console must show them as text.
  await seedThread(storage, 'd', 'dave@example.com', Date.now() - 60_000, 'Can an answer carry HTML?', {
    question: 'Can an answer carry **HTML**?',
    answer: HOSTILE_ANSWER,
  });
  // An answer the model server refused to write (a wrong key), stored as the service stores it:
  // failed, with why in the operator's words (decision 496).
  await seedThread(storage, 'f', 'frank@example.com', Date.now() - 30 * 60_000, 'Where is my invoice?', {
    question: 'Where is my invoice?',
    answer: '',
    failure: FAILURE,
  });
  // An answer of two days ago that cites a docs page indexed since: a stale source.
  await seedThread(
    storage,
    'e',
    'erin@example.com',
    Date.now() - 2 * DAY,
    'How much memory does Acme need?',
    {
      question: 'How much memory does Acme need?',
      answer: 'Acme needs 2 GB of memory.',
      sources: [
        {
          title: 'Installing Acme',
          subtitle: null,
          source_url: changedPage,
          source_type: 'documentation',
          section: 'Requirements',
          score: 0.033,
        },
      ],
    },
  );
}

/** A thread of one question and its answer, written to the store as the service writes them. */
async function seedThread(
  storage: Stores,
  letter: string,
  owner: string,
  at: number,
  title: string,
  {
    question,
    answer,
    sources = [],
    failure,
  }: { question: string; answer: string; sources?: Source[]; failure?: AnswerFailure },
) {
  const threadId = `th_${letter.repeat(32)}`;
  await storage.conversations.createThread({
    id: threadId,
    projectId: PROJECT.id,
    integrationId: 'int_docs',
    owner,
    title,
    createdAt: at,
    updatedAt: at,
  });
  await storage.conversations.appendMessage(
    threadId,
    messageRecord({ id: `msg_${letter.repeat(31)}1`, role: 'user', content: question, createdAt: at }),
  );
  await storage.conversations.appendMessage(
    threadId,
    messageRecord({
      id: `msg_${letter.repeat(31)}2`,
      role: 'assistant',
      content: answer,
      createdAt: at,
      sources,
      ...(failure && { status: 'error' as const, failure }),
    }),
  );
}

/** A question with a screenshot and a log, as the widget sends them: the review shows a thumbnail and two downloads. */
async function chatWithFiles(agent: string) {
  const minted = await (
    await fetch(`${agent}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ external_owner_id: 'erin@example.com' }),
    })
  ).json();
  const auth = { Authorization: `Bearer ${minted.session_token}` };
  const upload = async (bytes: Uint8Array, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([bytes as BlobPart]), name);
    const response = await fetch(`${agent}/files/?integration_id=int_docs`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    return ((await response.json()) as { file_id: string }).file_id;
  };
  const ids = [
    await upload(solidPng(48, 32, [37, 99, 235]), 'error screen.png'),
    // Text named as a page: the console saves it as text (decision 819).
    await upload(new TextEncoder().encode('ERROR 401 token expired\n'), 'console.html'),
  ];
  await (
    await fetch(`${agent}/chat/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        integration_id: 'int_docs',
        message: 'Why does the widget show this error?',
        attachments: ids,
      }),
    })
  ).text();
}

/** Why the seeded failed answer failed, as the model agent words a refused key. */
export const FAILURE: AnswerFailure = {
  code: 'model_unauthorized',
  message: 'The model server refused the key: it answered 401 (invalid_api_key); check OPENAI_API_KEY.',
};

/** Markdown with what must never become markup: raw HTML, a script URL, an image (a tracking pixel). */
export const HOSTILE_ANSWER = [
  '## Answers are text',
  '',
  'Raw <img src="/x" onerror="window.__pwned = 1"> stays text, and so does this:',
  '',
  '<script>window.__pwned = 1</script>',
  '',
  '- [the guide](https://example.com/guide)',
  '- [click me](javascript:window.__pwned=1)',
  '- ![a pixel](https://tracker.example/p.gif)',
  '',
  '```js',
  'el.textContent = answer;',
  '```',
].join('\n');

/**
 * A site owner's web site on its own origin: a page with the widget (the built single file)
 * and a session endpoint minting with `apiKey` against the service at `serviceUrl`.
 */
export async function startSite(
  serviceUrl: string,
  apiKey: string,
  integrationId: string,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const session = toNodeHandler(
    createSessionHandler({
      apiKey,
      projectId: PROJECT.id,
      baseUrl: serviceUrl,
      getOwnerId: () => 'site-visitor',
    }),
  );
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/api/agent-session') return void session(req, res);
    if (path === '/agent-chat.iife.js')
      return void res
        .writeHead(200, { 'Content-Type': 'text/javascript' })
        .end(readFileSync('dist/agent-chat.iife.js'));
    if (path === '/') {
      return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title>
<script src="/agent-chat.iife.js"></script></head><body><agent-chat mode="inline" project-id="${PROJECT.id}" integration-id="${integrationId}"
session-endpoint="/api/agent-session" base-url="${serviceUrl}"></agent-chat></body></html>`);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export { axe } from './chromium.js';
