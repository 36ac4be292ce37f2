/**
 * A `base-url` that is not the service's address (the field test's `…/agent/v1`): every request
 * answers 404. With no thread asked about, that is the page's setup, not a conversation gone.
 */
import { afterEach, describe, expect, vi } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { page } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { messagesOf, settled, threadListOf } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const WRONG_BASE = `${SERVICE_BASE}/agent/v1`;
const alertOf = (el: AgentChat) =>
  messagesOf(el)[0]?.shadowRoot?.querySelector('[role="alert"]')?.textContent ?? '';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('<agent-chat> with a base-url that is not the service', () => {
  test("a new conversation's first question reads as a chat not set up; the owner reads the address, once", async ({
    backend,
  }) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    backend.signIn('alice');
    const el = await fixture<AgentChat>(html`<agent-chat mode="inline" project-id=${PROJECT_ID}
      integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${WRONG_BASE}></agent-chat>`);
    const errors: { code: string; status?: number }[] = [];
    el.addEventListener('agent-chat-error', (event) => errors.push((event as CustomEvent).detail));

    await el.send('How do I theme it?');
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['failed']);
    expect(alertOf(el)).toContain('This chat is not set up yet.');
    expect(alertOf(el)).not.toContain('no longer exists');

    // The list asks for no thread either: the same words, not an empty list or a gone thread.
    await page.getByRole('button', { name: 'Conversations' }).click();
    await expect
      .poll(() => threadListOf(el).shadowRoot?.textContent ?? '')
      .toContain('This chat is not set up yet.');

    const advice = warn.mock.calls.map((call) => String(call[0])).filter((text) => text.includes('404'));
    expect(advice).toHaveLength(1);
    expect(advice[0]).toContain(`${WRONG_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`);
    expect(advice[0]).toContain('base-url');
    expect(advice[0]).toContain('without /agent/v1');
    expect(errors[0]).toMatchObject({ code: 'misconfigured' });
  });
});
