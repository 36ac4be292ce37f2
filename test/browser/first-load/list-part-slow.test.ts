/**
 * Conversations open, then a reload, on a network where the list's part (decision 341) is slow:
 * the reloaded widget closes the restored, empty list before the part has defined its element.
 * A page of its own, so the part has never loaded here (the shared page's other files load it).
 */
import { describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { http, passthrough } from 'msw';
import { test } from '../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID } from '../../msw/reference.js';
import { createDeviceMemoryStore } from '../../../src/chat/device-memory-store.js';
import { fixtureChat, threadListOf } from '../../helpers/chat-fixture.js';

describe('<agent-chat> reloaded with Conversations open while the list part is slow', () => {
  test('no error reaches the page, and the list works once its part arrives', async ({ worker, backend }) => {
    const errors: string[] = [];
    const onError = (event: ErrorEvent) => errors.push(String(event.error ?? event.message));
    const onRejection = (event: PromiseRejectionEvent) => errors.push(String(event.reason));
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    try {
      let arrive!: () => void;
      const slow = new Promise<void>((resolve) => (arrive = resolve));
      worker.use(
        http.get(/\/components\/thread-list\/thread-list\.ts/, async () => {
          await slow;
          return passthrough();
        }),
      );
      backend.signIn(null);
      expect(customElements.get('agent-chat-thread-list')).toBeUndefined();

      const first = await fixtureChat();
      await page.getByRole('button', { name: 'Conversations' }).click();
      const scope = createDeviceMemoryStore(`${PROJECT_ID}:${INTEGRATION_ID}`);
      await expect.poll(async () => (await scope.load(true))?.threadListOpen).toBe(true);
      first.remove();

      // The reload: the device says the list was open, then finds it empty and closes it.
      const el = await fixtureChat();
      await expect
        .poll(() => el.shadowRoot!.querySelector('[aria-label="Conversations"]')?.ariaExpanded)
        .toBe('false');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(customElements.get('agent-chat-thread-list')).toBeUndefined();
      expect(errors).toEqual([]);

      arrive();
      await page.getByRole('button', { name: 'Conversations' }).click();
      await expect
        .poll(() => threadListOf(el).shadowRoot?.textContent ?? '')
        .toContain('Sign in to see your past conversations.');
      expect(errors).toEqual([]);
    } finally {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    }
  });
});
