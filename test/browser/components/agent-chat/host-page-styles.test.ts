import { describe, expect } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import '../../../../src/define.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { deepElements, messagesOf, settled } from '../../../helpers/chat-fixture.js';

/**
 * Text properties inherit through a shadow root: a theme's footer or sidebar (uppercase, wide
 * tracking, bold, centred, justified, indented, nowrap, italic, tall lines) would restyle every
 * text of a widget pasted into it.
 */
const HOSTILE = [
  'text-transform: uppercase',
  'letter-spacing: 4px',
  'word-spacing: 12px',
  'line-height: 3',
  'font-weight: 800',
  'font-style: italic',
  'text-align: justify',
  'text-indent: 40px',
  'white-space: nowrap',
  'text-shadow: 2px 2px 0 red',
  'font-variant: small-caps',
  'word-break: break-all',
  'hyphens: auto',
  'cursor: crosshair',
].join(';');

const PROPERTIES = HOSTILE.split(';').map((rule) => rule.split(':')[0].trim());

async function chatIn(style: string): Promise<AgentChat> {
  const wrapper = await fixture<HTMLElement>(html`<div style=${style}>
    <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT}
      base-url=${SERVICE_BASE} mode="inline" theme="light" heading="Acme Support"
      prompts="How do I theme it?|Can I use it with React?"></agent-chat>
  </div>`);
  const el = wrapper.querySelector('agent-chat') as AgentChat;
  el.style.width = '400px';
  await settled(el);
  return el;
}

/** Each element's text properties, by its place in the tree. */
function textStyles(el: AgentChat): string[] {
  return [el, ...deepElements(el.shadowRoot!)].map((node) => {
    const style = getComputedStyle(node);
    return `${node.localName}.${node.className}: ${PROPERTIES.map((p) => `${p}=${style.getPropertyValue(p)}`).join(' ')}`;
  });
}

/** The widget's text styles in its hostile container, and in the same container made plain. */
function withAndWithout(el: AgentChat): [string[], string[]] {
  const wrapper = el.parentElement!;
  const styled = textStyles(el);
  wrapper.removeAttribute('style');
  const plain = textStyles(el);
  wrapper.setAttribute('style', HOSTILE);
  return [styled, plain];
}

describe('a host page that styles text', () => {
  test('reaches no text of the widget: start screen and an answer', async ({ backend }) => {
    const el = await chatIn(HOSTILE);
    const [start, plainStart] = withAndWithout(el);
    expect(start).toEqual(plainStart);

    await el.send('How do I theme it?');
    await settled(el);
    await Promise.all(messagesOf(el).map((m) => m.updateComplete));
    const [answered, plainAnswered] = withAndWithout(el);
    expect(answered.length).toBeGreaterThan(start.length + 10);
    expect(answered).toEqual(plainAnswered);
  });

  test("still takes a text-spacing tool's rule for every element (WCAG 1.4.12)", async ({ backend }) => {
    // The WCAG text-spacing bookmarklet's rule: `*` matches the host element itself, and what it
    // sets there inherits into the shadow root past the host's own reset.
    const tool = document.createElement('style');
    tool.textContent = '* { letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }';
    document.head.append(tool);
    try {
      const el = await chatIn(HOSTILE);
      await el.send('How do I theme it?');
      await settled(el);
      const bubble = deepElements(el.shadowRoot!).find((node) => node.matches('.bubble'))!;
      expect(getComputedStyle(bubble).letterSpacing).toBe('1.8px');
      expect(getComputedStyle(bubble).wordSpacing).toBe('2.4px');
      expect(getComputedStyle(bubble).textTransform).toBe('none');
    } finally {
      tool.remove();
    }
  });
});
