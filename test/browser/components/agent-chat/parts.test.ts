/** Every CSS part <agent-chat> documents can be styled from the page, nested ones through the element's exportparts. */
import { afterEach, describe, expect } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
// oxlint-disable-next-line import/default -- Vite's ?raw import: the default export is the file's text.
import source from '../../../../src/components/agent-chat/agent-chat.ts?raw';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import {
  buttonNamed,
  deepElements,
  messagesOf,
  nextAnswerEnd,
  typeMessage,
  settled,
  threadListToggle,
  threadListOf,
  fixtureChat,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

/** The `@csspart` names of the root's JSDoc: what the manifest and the README promise. */
const DOCUMENTED = [...source.matchAll(/@csspart ([\w-]+)/g)].map((match) => match[1]);
const AVATAR = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1"/></svg>')}`;

const sheet = document.createElement('style');
afterEach(() => sheet.remove());

describe('<agent-chat> CSS parts', () => {
  test('each documented part is styleable from the page', async ({ worker, backend }) => {
    expect(DOCUMENTED.length).toBeGreaterThanOrEqual(20);
    const el =
      await fixture<AgentChat>(html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT}
      base-url=${SERVICE_BASE} avatar=${AVATAR} disclaimer="Answers may be wrong." handoff="always"></agent-chat>`);
    await el.open();
    // A question that fails (its error line), then an answer with sources and actions (and the
    // handoff bar under it).
    worker.use(
      http.post(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`,
        () => HttpResponse.json({ detail: 'boom' }, { status: 500 }),
        { once: true },
      ),
    );
    await el.send('And dark mode?');
    // The second question carries a file (message__files).
    const composer = el.shadowRoot!.querySelector('agent-chat-composer')!;
    const input = composer.shadowRoot!.querySelector<HTMLInputElement>('input[type=file]')!;
    const picked = new DataTransfer();
    picked.items.add(new File(['ERROR: 401'], 'app.log', { type: 'text/plain' }));
    input.files = picked.files;
    input.dispatchEvent(new Event('change'));
    await expect.poll(() => composer.shadowRoot!.querySelector('.chip.ready')).toBeTruthy();
    await typeMessage(el, 'How do I theme it?');
    const answered = nextAnswerEnd(el);
    buttonNamed(composer.shadowRoot!, 'Send')!.click();
    await answered;
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['failed', 'sent', 'complete']);
    threadListToggle(el).click();
    await expect
      .poll(() => threadListOf(el).shadowRoot!.textContent)
      .toContain('Sign in to see your past conversations.');
    el.shadowRoot!.querySelector<HTMLButtonElement>('.more-toggle')!.click();
    await settled(el);
    // A chat with no way to get a session shows the `error` notice.
    const unconfigured = await fixture<AgentChat>(
      html`<agent-chat mode="inline" project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID}></agent-chat>`,
    );
    await settled(unconfigured);

    document.head.append(sheet);
    const styled = () =>
      [el, unconfigured]
        .flatMap((host) => deepElements(host.shadowRoot!))
        .filter((node) => getComputedStyle(node).scrollMarginTop === '7px');
    const unreachable: string[] = [];
    for (const part of DOCUMENTED) {
      sheet.textContent = `agent-chat::part(${part}) { scroll-margin-top: 7px; }`;
      if (!styled().length) unreachable.push(part);
    }
    expect(unreachable).toEqual([]);
    // And nothing undocumented leaks: a made-up part styles nothing.
    sheet.textContent = 'agent-chat::part(message__meta) { scroll-margin-top: 7px; }';
    expect(styled()).toEqual([]);
  });

  test("composer__field is the message box's rounded field: the page restyles its edge and its ring", async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const composer = el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!;
    const box = composer.querySelector('textarea')!;
    document.head.append(sheet);
    sheet.textContent = `agent-chat::part(composer__field) { border-radius: 4px; border-color: rgb(1, 2, 3); }
      agent-chat::part(composer__field):focus-within { outline-color: rgb(4, 5, 6); }`;
    const field = deepElements(el.shadowRoot!).find(
      (node) => getComputedStyle(node).borderTopLeftRadius === '4px',
    );
    // The one element that holds the text, Attach files and Send (decision 700), not the area around it.
    expect(field?.contains(box)).toBe(true);
    expect(field?.contains(buttonNamed(composer, 'Send')!)).toBe(true);
    expect(field?.contains(buttonNamed(composer, 'Attach files')!)).toBe(true);
    expect(getComputedStyle(field!).borderTopColor).toBe('rgb(1, 2, 3)');
    box.focus();
    expect(getComputedStyle(field!).outlineColor).toBe('rgb(4, 5, 6)');
  });
});
