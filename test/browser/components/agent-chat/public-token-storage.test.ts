/**
 * A public visitor's session token (§2b) lives in memory only (§3: the widget never writes a
 * token to any storage): not in IndexedDB with the conversations kept on the device, not in
 * the tab's sessionStorage with the panel state and a pagehide's stash, not in localStorage.
 */
import { fixture, html } from '@open-wc/testing';
import { describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, publicSessionRoutes } from '../../../msw/reference.js';
import { messagesOf } from '../../../helpers/chat-fixture.js';
import { dumpAllIndexedDb } from '../../../helpers/idb.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

describe('<agent-chat> a public session token', () => {
  test('is never written to IndexedDB, sessionStorage or localStorage', async ({ worker, backend }) => {
    worker.use(...publicSessionRoutes(backend));
    const el = await fixture<AgentChat>(
      html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} base-url=${SERVICE_BASE} mode="launcher"></agent-chat>`,
    );
    await el.open();
    await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), 'How do I theme it?');
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
    await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), 'a half sentence');
    dispatchEvent(new PageTransitionEvent('pagehide'));
    await expect.poll(async () => (await dumpAllIndexedDb()).join('\n')).toContain('How do I theme it?');

    // The token the widget sent, as the service saw it.
    const tokens = backend.chatRequests().map((r) => r.headers.get('Authorization')!.replace(/^Bearer /, ''));
    expect(tokens[0]).toMatch(/^ses_/);
    const stored = [
      ...(await dumpAllIndexedDb()),
      JSON.stringify(Object.entries(sessionStorage)),
      JSON.stringify(Object.entries(localStorage)),
    ].join('\n');
    expect(stored).toContain('a half sentence');
    expect(stored).not.toContain(tokens[0]);
    expect(stored).not.toMatch(/ses_[0-9a-f]{32}|session_token|altcha|Bearer/);
  });
});
