/**
 * The loader when the element's file fails to arrive (a dropped connection, a blocked script):
 * the launcher keeps working, the next use tries again, and the page is told once.
 */
import { page as browserPage } from 'vitest/browser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineLoader } from '../../../src/loader/loader.js';

/** A stand-in element: what the loader needs of the real one (`updateComplete`, `open()`). */
class StandInApp extends HTMLElement {
  opened = 0;
  updateComplete = Promise.resolve(true);
  open(): Promise<void> {
    this.opened += 1;
    this.setAttribute('open', '');
    return Promise.resolve();
  }
}

let failing = false;
let tries = 0;
defineLoader(async () => {
  tries += 1;
  if (failing) throw new TypeError('Failed to fetch dynamically imported module: /agent-chat.impl.js');
  if (!customElements.get('agent-chat-app')) customElements.define('agent-chat-app', StandInApp);
  return {};
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('<agent-chat> (the loader) when the element fails to load', () => {
  it('tries again at the next click, tells the page once, and settles a waiting call with the failure', async () => {
    failing = true;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const el = document.createElement('agent-chat') as HTMLElement & { open(): Promise<void> };
    el.setAttribute('project-id', 'proj_1');
    el.setAttribute('integration-id', 'int_1');
    document.body.append(el);
    const launcher = browserPage.getByRole('button', { name: 'Open chat' });

    // A page's call waits for the element: it learns of the failure instead of waiting for ever.
    await expect(el.open()).rejects.toThrow(/Failed to fetch/);
    // The visitor clicks: another try (the failure was not kept), which fails too; the launcher
    // stays, still closed. (The pointer's first arrival and the page's idle time may each add one.)
    const before = tries;
    await launcher.click();
    await expect.poll(() => tries).toBeGreaterThan(before);
    await expect.element(launcher).toHaveAttribute('aria-expanded', 'false');
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]?.[0])).toMatch(/did not load; opening the chat tries again.*CSP/);

    // No timer tries again behind the visitor's back: only a use does.
    const idle = tries;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(tries).toBe(idle);

    // The connection is back: the next click loads the element and opens it.
    failing = false;
    await launcher.click();
    await expect.poll(() => el.shadowRoot?.querySelector('agent-chat-app')).toBeInstanceOf(StandInApp);
    const app = el.shadowRoot!.querySelector('agent-chat-app') as StandInApp;
    await expect.poll(() => app.opened).toBe(1);
    expect(errors).toHaveBeenCalledTimes(1);
    el.remove();
  });
});
