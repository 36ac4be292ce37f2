import { beforeAll, beforeEach, describe, expect } from 'vitest';
import { commands, page } from 'vitest/browser';
import { fixture, html } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import '../../../src/define.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';
import { test } from '../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT, referenceBackend } from '../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../msw/stream.js';
import { fixtureChat, messagesOf, settled, sidebarToggle, threadListOf } from '../../helpers/chat-fixture.js';

/**
 * The look, against committed baselines (test/browser/visual/baselines): a dozen key states at
 * fixed sizes, motion off, fixed content. A change in the look fails here until the baselines
 * are refreshed on purpose (`npm run test:visual:update`) and the new PNGs reviewed.
 */

declare module 'vitest/browser' {
  interface BrowserCommands {
    reduceMotion: () => Promise<void>;
  }
}

const ANSWER = `To theme the widget, set CSS custom properties on the element:

\`\`\`css
agent-chat { --agent-chat-color-accent: #0f766e; }
\`\`\`

| Property | Default |
|---|---|
| accent | #1d4ed8 |
| radius | 12px |
`;

const SOURCES = [
  { title: 'Theming the widget', subtitle: null, source_url: 'https://docs.example.com/theming', source_type: 'doc' },
  { title: 'Design tokens reference', subtitle: null, source_url: 'https://www.example.org/tokens', source_type: 'doc' },
];

function answerStream(hold = false) {
  const records = [
    encodeRecord('stream_start', { thread_id: 'th_visual', question_answer_id: 'qa_visual' }),
    ...(hold ? [] : [encodeRecord('relevant_sources', { relevant_sources: SOURCES }), encodeRecord('partial_answer', { text: ANSWER })]),
    encodeRecord('identifiers', { thread_id: 'th_visual', question_answer_id: 'qa_visual' }, true),
  ];
  return http.post(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`, () =>
    new HttpResponse(streamBody(records, hold ? { holdAfter: 1 } : {}), { headers: STREAM_HEADERS }));
}

const shot = (name: string, target: Element = document.body) =>
  expect.element(page.elementLocator(target)).toMatchScreenshot(name);

async function desktop() {
  await page.viewport(1280, 800);
}

async function phone() {
  await page.viewport(390, 844);
}

/** A page the launcher floats over: a plain, deterministic background filling the viewport. */
async function launcherPage(): Promise<AgentChat> {
  const wrapper = await fixture<HTMLElement>(html`<div style="position: fixed; inset: 0; background: #f8fafc">
    <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${SERVICE_BASE}
      heading="Acme Support" subheading="We usually answer right away" prompts="How do I theme it?|Can I use it with React?|Where are my conversations?"></agent-chat>
  </div>`);
  const el = wrapper.querySelector('agent-chat') as AgentChat;
  await el.updateComplete;
  return el;
}

async function inline(options: { width?: number; theme?: 'light' | 'dark'; lang?: string } = {}): Promise<AgentChat> {
  const el = await fixtureChat({ mode: 'inline', theme: options.theme ?? 'light', prompts: 'How do I theme it?|Can I use it with React?' });
  el.style.width = `${options.width ?? 400}px`;
  el.heading = 'Acme Support';
  if (options.lang) el.setAttribute('lang', options.lang);
  await settled(el);
  return el;
}

async function withAnswer(el: AgentChat) {
  await el.send('How do I theme it?');
  await settled(el);
  await Promise.all(messagesOf(el).map((m) => m.updateComplete));
}

async function openList(el: AgentChat) {
  sidebarToggle(el).click();
  await settled(el);
  await threadListOf(el).updateComplete;
}

beforeAll(async () => {
  await commands.reduceMotion();
});

beforeEach(async () => {
  await desktop();
});

describe('visual regression', () => {
  test('launcher closed, then open on the start screen', async ({ worker }) => {
    worker.use(...referenceBackend().handlers);
    const el = await launcherPage();
    await shot('launcher-closed');
    await el.open();
    await shot('launcher-open-start');
  });

  test('an answer with code, a table and sources', async ({ worker }) => {
    worker.use(answerStream(), ...referenceBackend().handlers);
    const el = await inline();
    await withAnswer(el);
    await shot('answer-code-table-sources', el);
  });

  test('streaming: the typing dots and Stop', async ({ worker }) => {
    worker.use(answerStream(true), ...referenceBackend().handlers);
    const el = await inline();
    void el.send('How do I theme it?');
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status).toBe('streaming');
    await settled(el);
    await shot('streaming', el);
  });

  test('an error in plain words under the failed message, with Retry', async ({ worker }) => {
    worker.use(http.post(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`, () => HttpResponse.json({ detail: 'boom' }, { status: 500 })), ...referenceBackend().handlers);
    const el = await inline();
    await el.send('How do I theme it?');
    await settled(el);
    await shot('error-retry', el);
  });

  test('the conversations drawer with threads, and its empty, anonymous, loading and error states', async ({ worker }) => {
    const backend = referenceBackend();
    backend.signIn('alice');
    worker.use(...backend.handlers);
    await backend.seed('alice', ['How do I theme it?', 'Which frameworks are supported?', 'A rather long question about conversations that needs truncating']);
    const el = await inline();
    await openList(el);
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(3);
    await shot('list-threads', el);
  });

  test('list states: empty, sign-in needed, loading, error', async ({ worker }) => {
    const backend = referenceBackend();
    backend.signIn('alice');
    worker.use(...backend.handlers);
    let el = await inline();
    await openList(el);
    await expect.poll(() => threadListOf(el).shadowRoot!.textContent).toContain('No conversations yet.');
    await shot('list-empty', el);

    backend.signIn(null);
    el.remove();
    el = await inline();
    await openList(el);
    await expect.poll(() => threadListOf(el).shadowRoot!.textContent).toContain('Sign in');
    await shot('list-anonymous', el);

    const threads = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/`;
    worker.use(http.get(threads, () => new Promise<Response>(() => {})));
    backend.signIn('alice');
    el.remove();
    el = await inline();
    await openList(el);
    await shot('list-loading', el);

    worker.use(http.get(threads, () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    el.remove();
    el = await inline();
    await openList(el);
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelector('[role="alert"]')).not.toBeNull();
    await shot('list-error', el);
  });

  test('dark theme', async ({ worker }) => {
    worker.use(answerStream(), ...referenceBackend().handlers);
    const el = await inline({ theme: 'dark' });
    await withAnswer(el);
    await shot('answer-dark', el);
  });

  test('a 390 px phone: the full-screen panel', async ({ worker }) => {
    await phone();
    worker.use(answerStream(), ...referenceBackend().handlers);
    const el = await launcherPage();
    await el.open();
    await withAnswer(el);
    await shot('phone-answer');
  });

  test('right to left (Arabic)', async ({ worker }) => {
    worker.use(answerStream(), ...referenceBackend().handlers);
    const el = await inline({ lang: 'ar' });
    await expect.poll(() => el.shadowRoot!.querySelector('#panel')?.getAttribute('dir')).toBe('rtl');
    await settled(el);
    await shot('rtl-start', el);
  });
});
