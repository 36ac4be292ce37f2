import { describe, expect, it } from 'vitest';
import { expect as chaiExpect, fixture, html } from '@open-wc/testing';
import { page } from 'vitest/browser';
import '../../../src/define.js';
import type { ChatMessage } from '../../../src/chat/types.js';
import type { AgentChatMessage } from '../../../src/components/message/message.js';

const answer: ChatMessage = {
  id: 'm1',
  role: 'assistant',
  content: 'Raise the setting, then restart.',
  status: 'complete',
  sources: [
    {
      title: 'Server configuration',
      subtitle: null,
      source_url: 'https://docs.test/config#max_locks_per_transaction',
      source_type: 'documentation',
      section: 'max_locks_per_transaction',
      score: 0.033,
    },
    {
      title: 'Installing',
      subtitle: null,
      source_url: 'https://docs.test/install',
      source_type: 'documentation',
    },
  ],
};

describe('<agent-chat-message> sources (wire contract §4, version 4)', () => {
  it('shows the section under the page title, in the link that goes to its anchor', async () => {
    const el = await fixture<AgentChatMessage>(
      html`<agent-chat-message .message=${answer}></agent-chat-message>`,
    );
    const link = page.getByRole('link', { name: /Server configuration/ });
    await expect.element(link).toHaveAttribute('href', 'https://docs.test/config#max_locks_per_transaction');
    await expect
      .element(link)
      .toHaveAccessibleName('Server configuration max_locks_per_transaction docs.test');
    const title = link.element().querySelector('.title')!;
    const section = title.querySelector('.section')!;
    expect(section.textContent).toBe('max_locks_per_transaction');
    // Under the title, not beside it.
    expect(section.getBoundingClientRect().top).toBeGreaterThan(title.getBoundingClientRect().top + 4);
    // A source without a section shows its title alone.
    await expect
      .element(page.getByRole('link', { name: /Installing/ }))
      .toHaveAccessibleName('Installing docs.test');
    await chaiExpect(el).to.be.accessible();
  });

  it('at 320 px (400 % zoom) a long title, its section and its domain wrap whole, never cut (WCAG 1.4.10)', async () => {
    const long: ChatMessage = {
      ...answer,
      sources: [
        {
          title: 'Configuring the server: locks, connections, memory and the write-ahead log',
          subtitle: null,
          source_url: 'https://documentation.example-company.test/config#max_locks_per_transaction',
          source_type: 'documentation',
          section: 'max_locks_per_transaction and max_pred_locks_per_transaction',
        },
      ],
    };
    await fixture(
      html`<div style="width: 320px"><agent-chat-message .message=${long}></agent-chat-message></div>`,
    );
    const link = page.getByRole('link', { name: /Configuring the server/ }).element();
    const words = ['.title', '.section', '.domain'].map((s) => link.querySelector<HTMLElement>(s)!);
    for (const part of words) {
      // Whole: nothing beyond its box to hide, and the link holds it.
      expect(part.scrollWidth).toBeLessThanOrEqual(part.clientWidth);
      expect(part.getBoundingClientRect().right).toBeLessThanOrEqual(link.getBoundingClientRect().right);
    }
    const [title] = words;
    const line = parseFloat(getComputedStyle(title).lineHeight) || 20;
    // The title takes two lines or more before its section's line.
    const section = words[1].getBoundingClientRect();
    expect(section.top - title.getBoundingClientRect().top).toBeGreaterThan(1.5 * line);
    expect(link.getBoundingClientRect().right).toBeLessThanOrEqual(320);
  });
});
