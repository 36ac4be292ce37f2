import { describe, expect, it, vi } from 'vitest';
import { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';
import { defineOnce } from '../../../src/internal/define-once.js';
import '../../../src/define.js';

describe('defineOnce', () => {
  it('keeps the page working when the script runs twice', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    await import('../../../src/define.js?again');
    expect(customElements.get('agent-chat')).toBe(AgentChat);
    expect(error).not.toHaveBeenCalled();
    error.mockRestore();
  });

  it('logs one clear error, and does not throw, when another version holds the tag', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    class Impostor extends HTMLElement {}
    expect(() => defineOnce('agent-chat', Impostor)).not.toThrow();
    expect(error).toHaveBeenCalledTimes(0);
    customElements.define('agent-chat-test-foreign', class extends HTMLElement {});
    defineOnce('agent-chat-test-foreign', Impostor);
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toMatch(/\[agent-chat\] <agent-chat-test-foreign> is already defined by another script/);
    error.mockRestore();
  });
});
