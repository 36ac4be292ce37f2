/**
 * The widget's language and direction: the nearest page `lang`, `strings` overrides, the language
 * on the wire (§4) and in the steps line, right to left with code left to right, each block its own.
 */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import { STREAM_HEADERS, answerRecords, encodeRecord, streamBody } from '../../../msw/stream.js';
import {
  answerRoot,
  buttonNamed,
  fixtureChat,
  messagesOf,
  settled,
  threadListOf,
  threadListToggle,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const CHAT = `${AGENT}/chat/`;

/** An answer stream of fixed records, recording each request's JSON body. */
function scripted(records: string[], bodies: Array<Record<string, unknown>> = []) {
  return http.post(CHAT, async ({ request }) => {
    bodies.push((await request.json()) as Record<string, unknown>);
    return new HttpResponse(streamBody(records), { headers: STREAM_HEADERS });
  });
}

const start = encodeRecord('stream_start', { thread_id: 'th_lang', question_answer_id: 'qa_lang' });
const end = encodeRecord('identifiers', { thread_id: 'th_lang', question_answer_id: 'qa_lang' }, true);
const step = (id: string, summary: string | null, numResults: number | null = null) =>
  encodeRecord('agent_activity_update', {
    id,
    name: 'search_knowledge_base',
    status: 'completed',
    summary,
    num_results: numResults,
  });

async function inLanguage(lang: string): Promise<AgentChat> {
  const el = await fixtureChat();
  el.setAttribute('lang', lang);
  await vi.waitFor(() => {
    if (el.shadowRoot!.querySelector('#panel')!.getAttribute('lang') !== lang.split('-')[0])
      throw new Error('language not loaded yet');
  });
  return el;
}

describe("<agent-chat> the visitor's language on the wire (§4)", () => {
  test("every chat call carries the page's own tag as locale, tool continuations included", async ({
    backend,
  }) => {
    const el = await inLanguage('de-AT');
    el.tools = [
      {
        name: 'open_page',
        description: 'Opens a page.',
        parameters: { type: 'object', properties: { page: { type: 'string' } } },
        execute: () => ({ opened: true }),
      },
    ];
    await el.send('Open the pricing page');
    await settled(el);
    const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    expect(bodies).toHaveLength(2);
    expect(bodies[1].tool_results).toHaveLength(1);
    expect(bodies.map((b) => b.locale)).toEqual(['de-AT', 'de-AT']);
  });

  test('a lang that is no language tag sends no locale (the service would refuse it)', async ({
    worker,
    backend,
  }) => {
    const bodies: Array<Record<string, unknown>> = [];
    worker.use(scripted([start, encodeRecord('partial_answer', { text: 'Hi.' }), end], bodies));
    const el = await fixtureChat();
    el.setAttribute('lang', 'not a language!');
    await el.updateComplete;
    await el.send('Hello');
    expect(bodies).toHaveLength(1);
    expect('locale' in bodies[0]).toBe(false);
  });
});

describe('<agent-chat> the steps line', () => {
  test("a finished answer keeps one line for its steps, in the widget's words where the service gave none; the list opens behind it", async ({
    worker,
    backend,
  }) => {
    const bodies: Array<Record<string, unknown>> = [];
    worker.use(
      scripted(
        [
          start,
          step('s1', 'Suchte in der Dokumentation', 3),
          step('s2', null, 3),
          encodeRecord('partial_answer', { text: 'Antwort.' }),
          end,
        ],
        bodies,
      ),
    );
    const el = await inLanguage('de');
    await el.send('Wie ändere ich das Design?');
    await settled(el);
    expect(bodies[0].locale).toBe('de');
    const toggle = answerRoot(el).querySelector<HTMLButtonElement>('.steps-toggle')!;
    // The latest step, without a summary of its own: the widget's German, never its wire name.
    expect(toggle.textContent!.trim()).toBe('Schritt erledigt · Ergebnisse: 3');
    expect(answerRoot(el).textContent).not.toContain('search_knowledge_base');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(answerRoot(el).querySelector('.steps')).toBeNull();
    toggle.click();
    await settled(el);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(Array.from(answerRoot(el).querySelectorAll('.steps li')).map((li) => li.textContent)).toEqual([
      'Suchte in der Dokumentation',
      'Schritt erledigt · Ergebnisse: 3',
    ]);
    await chaiExpect(el).to.be.accessible();
  });

  test("the service's own summary is the line, as it wrote it", async ({ worker, backend }) => {
    worker.use(
      scripted([
        start,
        step('s1', 'Searched 3 articles', 3),
        encodeRecord('partial_answer', { text: 'Answer.' }),
        end,
      ]),
    );
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    expect(answerRoot(el).querySelector('.steps-toggle')!.textContent!.trim()).toBe('Searched 3 articles');
  });
});

/** How far a one-line label's text stands from its box's right edge: 0 when it starts on the right, as right-to-left lists do. */
function textEdgeGap(label: Element): number {
  const range = document.createRange();
  const text = Array.from(label.childNodes).find(
    (node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim(),
  );
  range.selectNodeContents(text!);
  return label.getBoundingClientRect().right - range.getBoundingClientRect().right;
}

describe('<agent-chat> right to left', () => {
  const ENGLISH =
    'I could not find that in the docs. Use `agent-chat` like this:\n\n```html\n<agent-chat project-id="p"></agent-chat>\n```\n\nمرحبًا، هذه فقرة بالعربية.\n';
  const sources = encodeRecord('relevant_sources', {
    relevant_sources: [
      {
        title: 'Theming the widget',
        subtitle: null,
        source_url: 'https://docs.example.com/theming',
        source_type: 'doc',
      },
    ],
  });

  for (const lang of ['ar', 'he']) {
    test(`in a ${lang} panel code runs left to right, an English block reads left to right, an Arabic one right to left`, async ({
      worker,
      backend,
    }) => {
      worker.use(scripted([start, sources, encodeRecord('partial_answer', { text: ENGLISH }), end]));
      const el = await inLanguage(lang);
      await el.send('What events does it fire?');
      await settled(el);
      const panel = el.shadowRoot!.querySelector<HTMLElement>('#panel')!;
      expect(panel.getAttribute('dir')).toBe('rtl');
      expect(getComputedStyle(panel).direction).toBe('rtl');
      const root = answerRoot(el);
      const pre = root.querySelector('pre')!;
      expect(getComputedStyle(pre).direction).toBe('ltr');
      expect(getComputedStyle(pre).textAlign).toBe('left');
      expect(getComputedStyle(root.querySelector('p code')!).direction).toBe('ltr');
      const [english, arabic] = Array.from(root.querySelectorAll<HTMLElement>('.content p'));
      expect(english.getAttribute('dir')).toBe('auto');
      expect(english.matches(':dir(ltr)')).toBe(true);
      expect(getComputedStyle(english).direction).toBe('ltr');
      expect(arabic.matches(':dir(rtl)')).toBe(true);
      const source = root.querySelector('.sources .title')!;
      expect(source.getAttribute('dir')).toBe('auto');
      expect(source.matches(':dir(ltr)')).toBe(true);
      // …yet it sits beside its number, on the panel's start side, not across the card from it.
      expect(textEdgeGap(source)).toBeLessThan(2);
      // The visitor's own English question reads left to right too.
      expect(messagesOf(el)[0].shadowRoot!.querySelector('.bubble')!.matches(':dir(ltr)')).toBe(true);
      await chaiExpect(el).to.be.accessible();
    });
  }

  test('thread titles find their own direction in the thread list', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['What events does it fire?']);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    threadListToggle(el).click();
    await expect
      .poll(() => threadListOf(el).shadowRoot!.querySelector('.title')?.textContent)
      .toBe('What events does it fire?');
    el.setAttribute('lang', 'ar');
    await vi.waitFor(() => {
      if (el.shadowRoot!.querySelector('#panel')!.getAttribute('dir') !== 'rtl')
        throw new Error('not right to left yet');
    });
    const title = threadListOf(el).shadowRoot!.querySelector('.title')!;
    expect(title.getAttribute('dir')).toBe('auto');
    expect(title.matches(':dir(ltr)')).toBe(true);
    expect(textEdgeGap(title)).toBeLessThan(2);
  });

  test('the message box stays right to left with a file in it and no text; typed English reads left to right', async ({
    backend,
  }) => {
    const el = await inLanguage('ar');
    const box = page.getByRole('textbox', { name: 'الرسالة' });
    await expect.element(box).toBeInTheDocument();
    const textarea = box.element() as HTMLTextAreaElement;
    expect(textarea.matches(':dir(rtl)')).toBe(true);
    // A visitor pastes a log before writing anything: the box (and its Arabic placeholder) stays right to left.
    const data = new DataTransfer();
    data.items.add(new File(['Traceback (most recent call last)\n'], 'error.log', { type: 'text/plain' }));
    textarea.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true }),
    );
    await expect.element(page.getByRole('button', { name: 'إزالة error.log' })).toBeInTheDocument();
    expect(textarea.matches(':dir(rtl)')).toBe(true);
    await box.fill('What does this error mean?');
    expect(textarea.matches(':dir(ltr)')).toBe(true);
    await box.fill('');
    expect(textarea.matches(':dir(rtl)')).toBe(true);
    await chaiExpect(el).to.be.accessible();
    void backend;
  });
});

describe('<agent-chat> languages', () => {
  test('follows the nearest page lang, lays Arabic out right to left, and strings override any text', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const panel = () => el.shadowRoot!.querySelector('#panel')!;
    el.setAttribute('lang', 'de');
    await expect
      .poll(() => threadListToggle(el) ?? buttonNamed(el.shadowRoot!, 'Unterhaltungen'))
      .toBeDefined();
    await expect.poll(() => buttonNamed(el.shadowRoot!, 'Unterhaltungen')).toBeDefined();
    await expect.element(page.getByRole('textbox', { name: 'Nachricht' })).toBeInTheDocument();
    expect(panel().getAttribute('dir')).toBe('ltr');

    el.setAttribute('lang', 'ar');
    await expect.poll(() => panel().getAttribute('dir')).toBe('rtl');
    await chaiExpect(el).to.be.accessible();

    el.strings = { send: 'Ask' };
    el.removeAttribute('lang');
    await expect.element(page.getByRole('button', { name: 'Ask' })).toBeInTheDocument();
    await expect.element(page.getByRole('button', { name: 'Conversations' })).toBeInTheDocument();
  });

  test('answers speak the widget language too: code blocks, actions and the live region', async ({
    worker,
    backend,
  }) => {
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () =>
          new HttpResponse(streamBody(answerRecords('th_de', ['So:\n```js\nx()\n```\n'])), {
            headers: STREAM_HEADERS,
          }),
      ),
    );
    const el = await fixtureChat();
    el.setAttribute('lang', 'de');
    await expect.element(page.getByRole('textbox', { name: 'Nachricht' })).toBeInTheDocument();
    await el.send('Wie?');
    await settled(el);
    await expect.element(page.getByRole('button', { name: 'Code kopieren' })).toBeInTheDocument();
    await expect.element(page.getByRole('button', { name: 'Antwort kopieren' })).toBeInTheDocument();
    el.setAttribute('lang', 'fr');
    await expect.element(page.getByRole('button', { name: 'Copier le code' })).toBeInTheDocument();
  });
});

describe('<agent-chat> on a right-to-left page', () => {
  /** Where the launcher and the open panel sit on a page of direction `dir`, in px from each side. */
  async function corner(dir: 'rtl' | 'ltr') {
    const wrapper = document.createElement('div');
    wrapper.dir = dir;
    document.body.append(wrapper);
    const el = await fixtureChat({ mode: 'launcher' });
    wrapper.append(el);
    await el.updateComplete;
    const sides = (box: DOMRect) => ({
      left: Math.round(box.left),
      right: Math.round(window.innerWidth - box.right),
    });
    const launcher = sides(page.getByRole('button', { name: 'Open chat' }).element().getBoundingClientRect());
    await el.open();
    await Promise.all(el.shadowRoot!.getAnimations().map((animation) => animation.finished));
    const panel = sides(el.shadowRoot!.querySelector('.panel')!.getBoundingClientRect());
    wrapper.remove();
    return { launcher, panel };
  }

  test("floats its launcher and panel in the page's bottom left corner, and in the right on a left-to-right page", async ({
    backend,
  }) => {
    await page.viewport(1280, 800);
    const rtl = await corner('rtl');
    expect([rtl.launcher.left, rtl.panel.left]).toEqual([20, 20]);
    const ltr = await corner('ltr');
    expect([ltr.launcher.right, ltr.panel.right]).toEqual([20, 20]);
  });

  test("keeps a phone's panel full screen, its launcher in the page's corner", async ({ backend }) => {
    await page.viewport(390, 844);
    const rtl = await corner('rtl');
    expect(rtl.launcher.left).toBe(20);
    expect(rtl.panel).toEqual({ left: 0, right: 0 });
  });
});
