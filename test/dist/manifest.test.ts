import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Declaration {
  tagName?: string;
  attributes?: Array<{ name: string }>;
  events?: Array<{ name: string; type?: { text: string } }>;
  cssParts?: Array<{ name: string }>;
  cssProperties?: Array<{ name: string; default?: string }>;
}

const manifest = JSON.parse(readFileSync('dist/custom-elements.json', 'utf8')) as { modules: Array<{ declarations?: Declaration[] }> };
const agentChat = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'agent-chat')!;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

describe('custom-elements.json', () => {
  it('is referenced from package.json', () => {
    expect(pkg.customElements).toBe('dist/custom-elements.json');
    expect(pkg.exports['./custom-elements.json']).toBe('./dist/custom-elements.json');
  });

  it('lists <agent-chat> with its attributes', () => {
    expect(agentChat.attributes!.map((a) => a.name)).toEqual(expect.arrayContaining(['project-id', 'integration-id', 'session-endpoint', 'base-url', 'mode', 'theme', 'greeting', 'open']));
  });

  it('lists its events with their classes', () => {
    const events = Object.fromEntries(agentChat.events!.map((e) => [e.name, e.type?.text]));
    expect(events).toMatchObject({
      'agent-chat-message-send': 'AgentChatMessageSendEvent',
      'agent-chat-answer-start': 'AgentChatAnswerStartEvent',
      'agent-chat-answer-end': 'AgentChatAnswerEndEvent',
      'agent-chat-error': 'AgentChatErrorEvent',
      'agent-chat-open-change': 'AgentChatOpenChangeEvent',
      'agent-chat-thread-change': 'AgentChatThreadChangeEvent',
    });
  });

  it('lists its parts and CSS custom properties with defaults', () => {
    expect(agentChat.cssParts!.map((p) => p.name)).toEqual(expect.arrayContaining(['launcher', 'panel', 'conversation', 'composer', 'composer__input', 'message__content', 'sidebar']));
    const props = Object.fromEntries(agentChat.cssProperties!.map((p) => [p.name, p.default]));
    expect(props['--agent-chat-color-accent']).toBe('#1d4ed8');
    expect(Object.keys(props).every((name) => name.startsWith('--agent-chat-'))).toBe(true);
  });
});
