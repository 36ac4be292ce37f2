/**
 * The loader's <agent-chat> before the element has loaded: what a framework reads right after
 * mounting is what the element will say (the public types promise it), its attribute or default.
 */
import { describe, expect, it } from 'vitest';
import { defineLoader } from '../../../src/loader/loader.js';
import type { AgentChat } from '../../../src/public-types.js';

// The element never arrives in this file: every read below is the loader's own.
defineLoader(() => new Promise(() => {}));

describe('<agent-chat> (the loader) before the element has loaded', () => {
  it('reads every property as its attribute, else its default, typed as the public types say', () => {
    document.body.insertAdjacentHTML(
      'beforeend',
      '<agent-chat id="late" project-id="proj_1" integration-id="int_1" mode="inline" open consent-required stream-idle-timeout="5000"></agent-chat>',
    );
    const el = document.getElementById('late') as unknown as AgentChat;
    expect(el.projectId).toBe('proj_1');
    expect(el.integrationId).toBe('int_1');
    expect(el.sessionEndpoint).toBe('');
    expect(el.baseUrl).toBe('');
    expect(el.ownerKey).toBe('');
    expect(el.mode).toBe('inline');
    expect(el.theme).toBe('light');
    expect(el.heading).toBe('');
    expect(el.handoffUrl).toBe('');
    expect(el.opened).toBe(true);
    expect(el.consentRequired).toBe(true);
    expect(el.streamIdleTimeout).toBe(5000);
    expect(el.tools).toEqual([]);
    expect(el.getSessionToken).toBeUndefined();

    const bare = document.createElement('agent-chat') as unknown as AgentChat;
    expect([bare.projectId, bare.mode, bare.opened, bare.streamIdleTimeout]).toEqual([
      '',
      'launcher',
      false,
      60_000,
    ]);
    // Set before the element: the value set wins over the attribute.
    el.projectId = 'proj_2';
    expect(el.projectId).toBe('proj_2');
  });

  it('draws one stand-in launcher for a snippet pasted twice, as the element draws one launcher (decision 459)', () => {
    document.body.insertAdjacentHTML(
      'beforeend',
      '<agent-chat id="one" project-id="p" integration-id="i"></agent-chat><agent-chat id="two" project-id="p" integration-id="i"></agent-chat>',
    );
    const launchers = [...document.querySelectorAll('agent-chat')].flatMap((el) => [
      ...(el.shadowRoot?.querySelectorAll('button') ?? []),
    ]);
    expect(launchers.map((b) => b.getAttribute('aria-label'))).toEqual(['Open chat']);
    expect(launchers[0].getRootNode()).toBe(document.getElementById('one')!.shadowRoot);
  });
});
