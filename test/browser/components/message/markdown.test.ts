import { afterEach, describe, expect, it, vi } from 'vitest';
import { expect as chaiExpect, fixture, html } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import '../../../../src/define.js';
import type { ChatMessage } from '../../../../src/chat/types.js';
import type { AgentChatMessage } from '../../../../src/components/message/message.js';
import { MARKDOWN_LIMIT } from '../../../../src/markdown/parse.js';
import { deepActiveElement } from '../../../helpers/chat-fixture.js';

const answer = (content: string, status: ChatMessage['status'] = 'complete'): ChatMessage => ({
  id: 'm1',
  role: 'assistant',
  content,
  sources: [],
  status,
});

async function showAnswer(content: string, status?: ChatMessage['status']) {
  const el = await fixture<AgentChatMessage>(
    html`<agent-chat-message .message=${answer(content, status)}></agent-chat-message>`,
  );
  await el.updateComplete;
  return el;
}

const CODE_ANSWER =
  'Install it:\n```bash\nnpm i agent-chat\n```\nThen:\n- [x] add the tag\n- [ ] set the theme\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';

describe('<agent-chat-message> markdown', () => {
  afterEach(() => vi.restoreAllMocks());

  for (const status of ['stopped', 'interrupted'] as const)
    it(`an answer ${status} inside a bold phrase shows it bold, not a literal **`, async () => {
      const el = await showAnswer('Use the **theme attri', status);
      const content = el.shadowRoot!.querySelector('.content')!;
      expect(content.textContent).not.toContain('**');
      expect(content.querySelector('strong')?.textContent).toBe('theme attri');
    });

  it('labels code blocks with their language and copies them with a keyboard-reachable button', async () => {
    const write = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    const el = await showAnswer(CODE_ANSWER);
    expect(el.shadowRoot!.querySelector('.code-lang')!.textContent).toBe('bash');
    const copy = page.getByRole('button', { name: 'Copy code' });
    await expect.element(copy).toBeVisible();
    await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).toBe(copy.element());
    await userEvent.keyboard('{Enter}');
    expect(write).toHaveBeenCalledWith('npm i agent-chat');
    await expect.element(page.getByRole('status').filter({ hasText: 'Copied' })).toBeInTheDocument();
  });

  it('says so when the clipboard refuses', async () => {
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    await showAnswer(CODE_ANSWER);
    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect.element(page.getByRole('status').filter({ hasText: 'Copy failed' })).toBeInTheDocument();
  });

  it('shows task items as disabled checkboxes and tables in a scrollable region', async () => {
    await showAnswer(CODE_ANSWER);
    const done = page.getByRole('checkbox', { name: 'Done', exact: true });
    await expect.element(done).toBeChecked();
    await expect.element(done).toBeDisabled();
    await expect.element(page.getByRole('checkbox', { name: 'Not done', exact: true })).not.toBeChecked();
    const region = page.getByRole('region', { name: 'Table' });
    await expect.element(region).toBeVisible();
    expect(getComputedStyle(region.element()).overflowX).toBe('auto');
    expect(getComputedStyle(region.element().querySelector('td')!).overflowWrap).toBe('normal');
  });

  it('scrolls wide code instead of wrapping it', async () => {
    const el = await showAnswer(`\`\`\`\n${'x'.repeat(2000)}\n\`\`\``);
    const pre = el.shadowRoot!.querySelector('pre')!;
    expect(getComputedStyle(pre).whiteSpace).toBe('pre');
    expect(pre.scrollWidth).toBeGreaterThan(pre.clientWidth);
  });

  it('links URLs, www. addresses and e-mail addresses safely', async () => {
    const el = await showAnswer(
      'See https://docs.example.com, www.example.com/help or mail help@example.com.',
    );
    const links = [...el.shadowRoot!.querySelectorAll('a')];
    expect(links.map((a) => a.href)).toEqual([
      'https://docs.example.com/',
      'http://www.example.com/help',
      'mailto:help@example.com',
    ]);
    for (const link of links)
      expect(link.rel.split(' ')).toEqual(expect.arrayContaining(['noopener', 'noreferrer']));
  });

  it('shows an answer past the limit as plain text after a short notice, losing nothing', async () => {
    const line = 'A **formatted** line of the answer.\n';
    const long = `${line.repeat(Math.ceil(MARKDOWN_LIMIT / line.length) + 200)}The very end.`;
    const el = await showAnswer(long);
    const notice = el.shadowRoot!.querySelector('.overflow-notice')!;
    expect(notice.textContent).toContain('shown as plain text');
    const plain = [...el.shadowRoot!.querySelectorAll('.plain')].map((piece) => piece.textContent).join('');
    expect(plain).toContain('A **formatted** line');
    expect(plain.endsWith('The very end.')).toBe(true);
    const formatted = el.shadowRoot!.querySelectorAll('strong').length;
    expect(formatted * line.length + plain.length).toBeGreaterThanOrEqual(long.length - line.length);
  });

  it('is accessible with code, tasks and tables', async () => {
    const el = await showAnswer(CODE_ANSWER);
    await chaiExpect(el).to.be.accessible();
  });
});
