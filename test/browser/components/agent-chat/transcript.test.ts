/** exportTranscript() and "Download conversation": the same Markdown. */
import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { buttonNamed, fixtureChat, settled } from '../../../helpers/chat-fixture.js';
describe('<agent-chat> transcript', () => {
  test('exportTranscript() returns the Markdown that "Download conversation" saves', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const markdown = await el.exportTranscript();
    expect(markdown).toContain('> How do I theme it?');
    const saved: Blob[] = [];
    const create = vi
      .spyOn(URL, 'createObjectURL')
      .mockImplementation((blob) => (saved.push(blob as Blob), 'blob:test'));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    try {
      // A secondary action: it lives in the header's "More" menu.
      expect(buttonNamed(el.shadowRoot!, 'Download conversation')).toBeUndefined();
      buttonNamed(el.shadowRoot!, 'More')!.click();
      await el.updateComplete;
      buttonNamed(el.shadowRoot!, 'Download conversation')!.click();
      expect(await saved[0].text()).toBe(markdown);
      expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('conversation.md');
    } finally {
      create.mockRestore();
      click.mockRestore();
    }
  });
});
