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
});
