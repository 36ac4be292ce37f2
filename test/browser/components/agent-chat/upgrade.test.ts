import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { messagesOf, settled } from '../../../helpers/chat-fixture.js';
import { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

describe('<agent-chat> upgrade', () => {
  test('keeps properties a page set before the script defined the element', async ({ backend }) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    // A unique tag: the element exists (and gets its properties) before its class is defined.
    const tag = `agent-chat-late-${Math.random().toString(36).slice(2)}`;
    const el = document.createElement(tag) as AgentChat;
    let calls = 0;
    Object.assign(el, {
      projectId: PROJECT_ID,
      integrationId: INTEGRATION_ID,
      baseUrl: SERVICE_BASE,
      mode: 'inline',
      getSessionToken: async () => {
        calls += 1;
        return (await fetch(SESSION_ENDPOINT, { method: 'POST' })).json();
      },
    });
    document.body.append(el);
    try {
      customElements.define(tag, class extends AgentChat {});
      await settled(el);
      expect(el.shadowRoot!.textContent).not.toContain('not configured');
      expect(logged).not.toHaveBeenCalled();
      await el.send('Hello after upgrade');
      await settled(el);
      expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
      expect(calls).toBe(1);
    } finally {
      el.remove();
      logged.mockRestore();
    }
  });
});
