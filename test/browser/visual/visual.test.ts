import { beforeAll, beforeEach, describe, expect, vi } from 'vitest';
import { commands, page, userEvent } from 'vitest/browser';
import { expect as chaiExpect, fixture, html } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import '../../../src/define.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';
import { test } from '../../msw/test.js';
import {
  INTEGRATION_ID,
  PROJECT_ID,
  SERVICE_BASE,
  SESSION_ENDPOINT,
  ownerKeyOf,
} from '../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../msw/stream.js';
import {
  composerOf,
  fixtureChat,
  logFile,
  messagesOf,
  pickFiles,
  recentConversations,
  settled,
  textareaOf,
  threadListToggle,
  threadListOf,
  typeMessage,
} from '../../helpers/chat-fixture.js';
import { useShippedFonts } from './fonts.js';
import type { ClientTool } from '../../../src/public-types.js';

/**
 * The look, against committed baselines (test/browser/visual/baselines): a dozen key states at
 * fixed sizes, motion off, fixed content. A change in the look fails here until the baselines
 * are refreshed on purpose (`npm run test:visual:update`) and the new PNGs reviewed.
 */

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
  {
    title: 'Theming the widget',
    subtitle: null,
    source_url: 'https://docs.example.com/theming',
    source_type: 'doc',
  },
  {
    title: 'Design tokens reference',
    subtitle: null,
    source_url: 'https://www.example.org/tokens',
    source_type: 'doc',
  },
];

/** An English answer with a code block, as a right-to-left panel must show it. */
const CODE_ANSWER = `I couldn't find that in the docs. Listen for the widget's events:

\`\`\`js
chat.addEventListener('agent-chat-answer-end', (e) => console.log(e.detail));
\`\`\`

What events does it fire? \`agent-chat-error\` and \`agent-chat-feedback\`, among others.
`;

const STEP = {
  id: 's1',
  name: 'search_knowledge_base',
  status: 'completed',
  summary: 'Searched 2 articles',
  num_results: 2,
};

/** Sources as a version 4 service sends them: each with the section the answer used. */
const SECTIONS = [
  { ...SOURCES[0], title: 'Installing Acme', section: 'Requirements' },
  { ...SOURCES[1], title: 'Configuration', section: 'Locks › max_locks_per_transaction (integer)' },
];

function answerStream(hold = false, text = ANSWER, sources: object[] = SOURCES) {
  const records = [
    encodeRecord('stream_start', { thread_id: 'th_visual', question_answer_id: 'qa_visual' }),
    encodeRecord(
      'agent_activity_update',
      hold
        ? {
            ...STEP,
            status: 'started',
            summary: 'Searching the docs for “How do I theme it?”',
            num_results: null,
          }
        : STEP,
    ),
    ...(hold
      ? []
      : [
          encodeRecord('relevant_sources', { relevant_sources: sources }),
          encodeRecord('partial_answer', { text }),
        ]),
    encodeRecord('identifiers', { thread_id: 'th_visual', question_answer_id: 'qa_visual' }, true),
  ];
  return http.post(
    `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`,
    () => new HttpResponse(streamBody(records, hold ? { holdAfter: 2 } : {}), { headers: STREAM_HEADERS }),
  );
}

/** A logo as a data URL: no network, same pixels every run. */
const AVATAR = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><circle cx="14" cy="14" r="14" fill="#0f766e"/><path d="M8 19 14 7l6 12z" fill="#fff"/></svg>')}`;

/** Each state is also checked by axe: 0 violations in every state shown. */
async function shot(name: string, target: Element = document.body) {
  await expect.element(page.elementLocator(target)).toMatchScreenshot(name);
  const system = (await commands.platformFonts()).filter((font) => !font.isCustomFont);
  expect(system, `${name} drew text with a system font`).toEqual([]);
  const widget = target.matches('agent-chat') ? target : target.querySelector('agent-chat');
  if (widget) await chaiExpect(widget).to.be.accessible();
}

async function desktop() {
  await page.viewport(1280, 800);
}

async function phone() {
  await page.viewport(390, 844);
}

/** A page the launcher floats over: a plain, deterministic background filling the viewport. */
async function launcherPage(
  options: { ownerKey?: string; theme?: 'light' | 'dark' } = {},
): Promise<AgentChat> {
  const wrapper = await fixture<HTMLElement>(html`<div style="position: fixed; inset: 0; background: #f8fafc">
    <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${SERVICE_BASE}
      owner-key=${options.ownerKey ?? '-'} theme=${options.theme ?? 'light'}
      heading="Acme Support" subheading="We usually answer right away" avatar=${AVATAR}
      disclaimer="Answers are generated by AI and may be wrong." prompts="How do I theme it?|Can I use it with React?|Where are my conversations?"></agent-chat>
  </div>`);
  const el = wrapper.querySelector('agent-chat') as AgentChat;
  await el.updateComplete;
  return el;
}

async function inline(
  options: { width?: number; theme?: 'light' | 'dark'; lang?: string } = {},
): Promise<AgentChat> {
  const el = await fixtureChat({
    mode: 'inline',
    theme: options.theme ?? 'light',
    prompts: 'How do I theme it?|Can I use it with React?',
  });
  el.style.width = `${options.width ?? 400}px`;
  el.heading = 'Acme Support';
  if (options.lang) el.setAttribute('lang', options.lang);
  await settled(el);
  return el;
}

async function withAnswer(el: AgentChat, question = 'How do I theme it?') {
  await el.send(question);
  await settled(el);
  await Promise.all(messagesOf(el).map((m) => m.updateComplete));
}

async function openList(el: AgentChat) {
  threadListToggle(el).click();
  await settled(el);
  await threadListOf(el).updateComplete;
}

beforeAll(async () => {
  await useShippedFonts();
  await commands.reduceMotion();
});

beforeEach(async () => {
  await desktop();
});

describe('visual regression', () => {
  test('launcher closed, then open on the start screen', async ({ backend }) => {
    const el = await launcherPage();
    await shot('launcher-closed');
    await el.open();
    await shot('launcher-open-start');
  });

  test('an answer with code, a table and sources', async ({ worker, backend }) => {
    worker.use(answerStream());
    const el = await inline();
    await withAnswer(el);
    await shot('answer-code-table-sources', el);
  });

  test('streaming: the typing dots and Stop', async ({ worker, backend }) => {
    worker.use(answerStream(true));
    const el = await inline();
    void el.send('How do I theme it?');
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status).toBe('streaming');
    await settled(el);
    await shot('streaming', el);
  });

  test('an error in plain words under the failed message, with Retry', async ({ worker, backend }) => {
    worker.use(
      http.post(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`, () =>
        HttpResponse.json({ detail: 'boom' }, { status: 500 }),
      ),
    );
    const el = await inline();
    await el.send('How do I theme it?');
    await settled(el);
    await shot('error-retry', el);
  });

  test('the thread list with threads, and its empty, anonymous, loading and error states', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', [
      // The follow-up finds no article; the row still reads the title's own answer.
      ['How do I theme it?', 'Can it bake bread?'],
      'Which frameworks are supported?',
      'A rather long question about conversations that needs truncating',
    ]);
    const el = await inline();
    await openList(el);
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(3);
    // A row at rest (its actions hidden until hover) reads its whole title where it fits. The
    // pointer is where an earlier file left it (over a row, in a full run): it rests on the
    // search field, away from the rows.
    await page.elementLocator(threadListOf(el).shadowRoot!.querySelector('input')!).hover();
    const title = Array.from(threadListOf(el).shadowRoot!.querySelectorAll('.title')).find(
      (span) => span.textContent === 'Which frameworks are supported?',
    )!;
    await expect.poll(() => title.scrollWidth - title.clientWidth).toBeLessThanOrEqual(0);
    await shot('list-threads', el);
  });

  test('list states: empty, sign-in needed, loading, error', async ({ worker, backend }) => {
    backend.signIn('alice');
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

  test('dark theme', async ({ worker, backend }) => {
    worker.use(answerStream());
    const el = await inline({ theme: 'dark' });
    await withAnswer(el);
    await shot('answer-dark', el);
  });

  test('a 390 px phone: the full-screen panel', async ({ worker, backend }) => {
    await phone();
    worker.use(answerStream());
    const el = await launcherPage();
    await el.open();
    await withAnswer(el);
    await shot('phone-answer');
  });

  test('a landscape phone with its keyboard open (844×170): the compact panel, an answer in light, its end in dark', async ({
    worker,
    backend,
  }) => {
    await page.viewport(844, 170);
    worker.use(answerStream());
    let el = await launcherPage();
    await el.open();
    await withAnswer(el);
    await typeMessage(el, 'And with React?');
    await shot('landscape-keyboard-answer');
    el.parentElement!.remove();
    // The same visitor on the same device: the conversation comes back, scrolled to its end.
    el = await launcherPage({ theme: 'dark' });
    await el.open();
    await settled(el);
    await shot('landscape-keyboard-answer-dark');
  });

  test('right to left (Arabic)', async ({ worker, backend }) => {
    worker.use(answerStream());
    const el = await inline({ lang: 'ar' });
    await expect.poll(() => el.shadowRoot!.querySelector('#panel')?.getAttribute('dir')).toBe('rtl');
    await settled(el);
    await shot('rtl-start', el);
  });
  test("the README's own element (no prompts, no greeting): a compact greeting above the composer, desktop and phone", async ({
    backend,
  }) => {
    const readme = async () => {
      const wrapper =
        await fixture<HTMLElement>(html`<div style="position: fixed; inset: 0; background: #f8fafc">
        <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${SERVICE_BASE}></agent-chat>
      </div>`);
      const el = wrapper.querySelector('agent-chat') as AgentChat;
      await el.open();
      await settled(el);
      return el;
    };
    const el = await readme();
    await shot('start-compact');
    el.parentElement!.remove();
    await phone();
    await readme();
    await shot('phone-start-compact');
  });

  test('a 390 px phone: the start screen fills the panel', async ({ backend }) => {
    await phone();
    const el = await launcherPage();
    await el.open();
    await settled(el);
    await shot('phone-start');
  });

  test("a signed-in visitor's start screen with their latest conversations, and in dark", async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Which frameworks are supported?', 'How do I theme it?']);
    let el = await launcherPage({ ownerKey: ownerKeyOf('alice') });
    await el.open();
    await expect.poll(() => recentConversations(el).length).toBe(2);
    await settled(el);
    await shot('start-latest-threads');
    el.parentElement!.remove();
    await phone();
    el = await launcherPage({ theme: 'dark' });
    await el.open();
    await settled(el);
    await shot('phone-start-dark');
  });

  for (const lang of ['ar', 'he']) {
    test(`right to left (${lang}): an English answer with a code block`, async ({ worker, backend }) => {
      worker.use(answerStream(false, CODE_ANSWER));
      const el = await inline({ lang });
      await expect.poll(() => el.shadowRoot!.querySelector('#panel')?.getAttribute('dir')).toBe('rtl');
      await withAnswer(el, 'What events does it fire?');
      // The question's bubble stands on the left: its tail (the one sharp corner) is there too.
      const bubble = messagesOf(el)[0].shadowRoot!.querySelector('.bubble')!;
      expect(getComputedStyle(bubble).borderBottomLeftRadius).not.toBe(
        getComputedStyle(bubble).borderTopLeftRadius,
      );
      await shot(`rtl-answer-code-${lang}`, el);
    });
  }

  test('a long code line: its cut edge shows, then Wrap lines folds it in', async ({ worker, backend }) => {
    worker.use(answerStream(false, CODE_ANSWER));
    const el = await inline();
    await withAnswer(el, 'What events does it fire?');
    await shot('code-long-line', el);
    const wrap = Array.from(messagesOf(el).at(-1)!.shadowRoot!.querySelectorAll('button')).find(
      (b) => b.textContent?.trim() === 'Wrap lines',
    )!;
    wrap.click();
    await settled(el);
    await shot('code-long-line-wrapped', el);
  });

  test('a tool card waiting for approval, and the More menu open', async ({ backend }) => {
    const el = await inline();
    const tool: ClientTool = {
      name: 'open_page',
      displayName: 'Open a page',
      description: 'Opens a page by name.',
      needsApproval: true,
      parameters: { type: 'object', properties: { page: { type: 'string' } } },
      execute: () => ({ opened: true }),
    };
    el.tools = [tool];
    const sent = el.send('Open the pricing page');
    await expect
      .poll(() => messagesOf(el).at(-1)?.shadowRoot?.querySelector('[data-state="awaiting-approval"]'))
      .not.toBeNull();
    await settled(el);
    await shot('tool-approval', el);
    Array.from(messagesOf(el).at(-1)!.shadowRoot!.querySelectorAll('button'))
      .find((b) => b.textContent?.trim() === 'Allow')!
      .click();
    await sent;
    await settled(el);
    // Opened from the keyboard, as a keyboard visitor does: the first item shows its focus ring.
    // A click from a script would leave the ring to the page's last real input (:focus-visible),
    // which is whatever an earlier file in the shared page did last.
    el.shadowRoot!.querySelector<HTMLButtonElement>('.more-toggle')!.focus();
    await userEvent.keyboard('{Enter}');
    await expect
      .poll(() => el.shadowRoot!.querySelector('.menu button')?.matches(':focus-visible'))
      .toBe(true);
    await settled(el);
    await shot('tool-done-more-menu', el);
  });

  test('sources with the section each answer used, light and dark', async ({ worker, backend }) => {
    worker.use(answerStream(false, 'You need Node 20 and 2 GB of memory.', SECTIONS));
    let el = await inline();
    await withAnswer(el, 'How much memory does Acme need?');
    await shot('sources-sections', el);
    el.remove();
    el = await inline({ theme: 'dark' });
    await withAnswer(el, 'How much memory does Acme need?');
    await shot('sources-sections-dark', el);
  });

  test('offline: questions wait in the outbox, each Queued, with the files each carries', async ({
    backend,
  }) => {
    const el = await inline();
    // A file picked while online goes up at once; the question that carries it is asked offline.
    await pickFiles(el, logFile('server.log'));
    await expect
      .poll(() => composerOf(el).shadowRoot!.querySelector('.tray .chip')?.classList.contains('ready'))
      .toBe(true);
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    // The network is gone: every request fails as fetch does offline.
    const fetchSpy = vi
      .spyOn(window, 'fetch')
      .mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    try {
      dispatchEvent(new Event('offline'));
      await el.send('How do I theme it?');
      await typeMessage(el, 'And which events does it fire when an answer ends or fails?');
      textareaOf(el).dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
      );
      await settled(el);
      // The long question's words give way; its file's name stays in sight.
      expect(el.shadowRoot!.querySelectorAll('.outbox li')[1].textContent).toContain('server.log');
      // A long question gives way, not its Remove: each row's button keeps its size and edge.
      const removes = Array.from(el.shadowRoot!.querySelectorAll('.outbox .remove'), (b) =>
        b.getBoundingClientRect(),
      );
      expect(removes.map((r) => r.width)).toEqual([28, 28]);
      expect(removes[1].right).toBe(removes[0].right);
      await shot('offline-queued', el);
    } finally {
      fetchSpy.mockRestore();
      onLine.mockRestore();
    }
  });

  test('forced colours (Windows High Contrast): an answer with its sources, a vote given, the feedback form', async ({
    worker,
    backend,
  }) => {
    worker.use(
      answerStream(),
      http.post(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/feedback/`,
        () => new HttpResponse(null, { status: 204 }),
      ),
    );
    await commands.forcedColors('active');
    try {
      const el = await inline();
      await withAnswer(el);
      messagesOf(el)
        .at(-1)!
        .shadowRoot!.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!
        .click();
      await expect.poll(() => messagesOf(el).at(-1)!.message?.reaction).toBe('downvote');
      await settled(el);
      // One reason pressed: its chip's check mark and highlight beside the others.
      messagesOf(el).at(-1)!.shadowRoot!.querySelector<HTMLInputElement>('.chip input')!.click();
      await shot('forced-colors-feedback', el);
    } finally {
      await commands.forcedColors('none');
    }
  });

  test('the feedback form after Not helpful', async ({ worker, backend }) => {
    // The service takes the vote, so the button shows it given (the stream's answer is not the
    // reference backend's own, which would refuse it and take the vote back).
    worker.use(
      answerStream(),
      http.post(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/feedback/`,
        () => new HttpResponse(null, { status: 204 }),
      ),
    );
    const el = await inline();
    await withAnswer(el);
    const answer = messagesOf(el).at(-1)!;
    // A vote not given is a line drawing, as copy and regenerate are; the vote given is filled.
    const filled = (name: string) =>
      getComputedStyle(answer.shadowRoot!.querySelector(`button[aria-label="${name}"] svg`)!).fill !== 'none';
    expect([filled('Helpful'), filled('Not helpful')]).toEqual([false, false]);
    answer.shadowRoot!.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
    await expect.poll(() => answer.message?.reaction).toBe('downvote');
    await settled(el);
    expect([filled('Helpful'), filled('Not helpful')]).toEqual([false, true]);
    // One reason pressed: its chip's check mark and tint beside the others.
    answer.shadowRoot!.querySelector<HTMLInputElement>('.chip input')!.click();
    await shot('feedback-form', el);
  });

  const FILES_ANSWER =
    'The log shows a 401 on the token refresh: your session endpoint refused it. Sign in again.';

  /** A screenshot drawn on a canvas (same pixels every run), a log and a PDF, picked as the file dialog hands them over. */
  async function attachFiles(el: AgentChat) {
    const canvas = Object.assign(document.createElement('canvas'), { width: 160, height: 100 });
    const draw = canvas.getContext('2d')!;
    draw.fillStyle = '#e2e8f0';
    draw.fillRect(0, 0, 160, 100);
    draw.fillStyle = '#b42318';
    draw.fillRect(16, 30, 128, 40);
    draw.fillStyle = '#ffffff';
    draw.fillRect(28, 44, 104, 12);
    const png = await new Promise<Blob>((resolve) => canvas.toBlob((blob) => resolve(blob!), 'image/png'));
    const picked = new DataTransfer();
    picked.items.add(new File([png], 'error-dialog.png', { type: 'image/png' }));
    picked.items.add(
      new File(['2026-11-28 ERROR Token refresh failed: 401\n'.repeat(40)], 'server.log', {
        type: 'text/plain',
      }),
    );
    picked.items.add(new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    const composer = el.shadowRoot!.querySelector('agent-chat-composer')!;
    const input = composer.shadowRoot!.querySelector<HTMLInputElement>('input[type=file]')!;
    input.files = picked.files;
    input.dispatchEvent(new Event('change'));
    await expect.poll(() => composer.shadowRoot!.querySelectorAll('.chip.ready').length).toBe(2);
    await expect
      .poll(() => composer.shadowRoot!.querySelector<HTMLImageElement>('img.thumb')?.complete)
      .toBe(true);
    const textarea = composer.shadowRoot!.querySelector('textarea')!;
    textarea.value = 'Why does sign-in fail?';
    textarea.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    await settled(el);
  }

  /** Sends what the composer holds and waits for the question's thumbnail. */
  async function sendFiles(el: AgentChat) {
    const composer = el.shadowRoot!.querySelector('agent-chat-composer')!;
    const ended = new Promise((resolve) =>
      el.addEventListener('agent-chat-answer-end', resolve, { once: true }),
    );
    composer.shadowRoot!.querySelector<HTMLButtonElement>('button[part="send-button"]')!.click();
    await ended;
    await settled(el);
    const question = messagesOf(el)[0].shadowRoot!;
    await expect.poll(() => question.querySelector<HTMLImageElement>('.files img')?.complete).toBe(true);
    await settled(el);
  }

  for (const [name, options] of [
    ['light', {}],
    ['dark', { theme: 'dark' }],
    ['rtl', { lang: 'ar' }],
  ] as const) {
    test(`files: the composer with files and a refusal, then the question with its files (${name})`, async ({
      worker,
      backend,
    }) => {
      worker.use(answerStream(false, FILES_ANSWER));
      const el = await inline(options);
      await attachFiles(el);
      await shot(`files-composer-${name}`, el);
      await sendFiles(el);
      await shot(`files-question-${name}`, el);
    });
  }

  test('files on a 390 px phone: the composer with files, then the question', async ({ worker, backend }) => {
    await phone();
    worker.use(answerStream(false, FILES_ANSWER));
    const el = await launcherPage();
    await el.open();
    await attachFiles(el);
    await shot('files-composer-phone');
    await sendFiles(el);
    await shot('files-question-phone');
  });
});
