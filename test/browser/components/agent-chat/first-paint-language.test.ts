/**
 * The page's language from the first paint: the launcher is named in it before that language's
 * texts have loaded (they come on demand).
 */
import { describe, expect, it } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import '../../../../src/define.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const launcherOf = (el: AgentChat) => el.shadowRoot!.querySelector('[part="launcher"]')!;

describe('<agent-chat> before its language has loaded', () => {
  // Each case its own language, so none is loaded yet when it looks (locales load once per page).
  for (const [lang, name] of [
    ['de', 'Chat öffnen'],
    ['he-IL', 'פתיחת הצ׳אט'],
  ] as const)
    it(`lang="${lang}": the launcher is named "${name}" at its first render`, async () => {
      const el = await fixture<AgentChat>(
        html`<div lang=${lang}><agent-chat mode="launcher" project-id="p" integration-id="i"></agent-chat></div>`,
      ).then((wrapper) => wrapper.querySelector<AgentChat>('agent-chat')!);
      // fixture() resolves after the first render, well before a locale module arrives.
      expect(launcherOf(el).getAttribute('aria-label')).toBe(name);
      // And the rest of the language follows when it has loaded.
      await expect
        .poll(() => el.shadowRoot!.querySelector('[part="panel"]')?.getAttribute('lang'))
        .toBe(lang.slice(0, 2));
    });
});
