import { describe, expect, it, vi } from 'vitest';
import { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';
import { defineOnce } from '../../../src/internal/define-once.js';
import '../../../src/define.js';

describe('defineOnce', () => {
  it('keeps the page working when a second copy of the same version registers again', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    // A second <script src> of the same bundle brings its own classes for the same tags.
    class SecondCopy extends HTMLElement {}
    expect(() => defineOnce('agent-chat', SecondCopy)).not.toThrow();
    expect(customElements.get('agent-chat')).toBe(AgentChat);
    expect(error).not.toHaveBeenCalled();
    error.mockRestore();
  });

  it('logs one clear error, and does not throw, when another script holds the tag', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    customElements.define('agent-chat-test-foreign', class extends HTMLElement {});
    expect(() => defineOnce('agent-chat-test-foreign', class extends HTMLElement {})).not.toThrow();
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toMatch(
      /\[agent-chat\] <agent-chat-test-foreign> is already defined by another script/,
    );
    error.mockRestore();
  });
});
