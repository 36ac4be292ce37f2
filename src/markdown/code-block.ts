import { html, nothing, type TemplateResult } from 'lit';
import type { Tokens } from 'marked';
import type { Translate } from '../i18n/index.js';
import { decodeEntities } from './entities.js';

/**
 * Copies and says how it went: the clipboard can be refused (permissions, insecure pages). A
 * copy shows "Copied" on the button for a moment (an attribute the styles read, so Lit's text
 * stays untouched); either outcome is announced.
 */
function copyCode(event: Event, code: string, t: Translate): void {
  const button = event.currentTarget as HTMLButtonElement;
  const status = button.nextElementSibling as HTMLElement;
  const say = (text: string, copied: boolean) => {
    status.textContent = text;
    button.toggleAttribute('data-copied', copied);
    setTimeout(() => {
      status.textContent = '';
      button.removeAttribute('data-copied');
    }, 2000);
  };
  // No clipboard (an insecure context): say so at once.
  if (!navigator.clipboard) return say(t('copyFailed'), false);
  navigator.clipboard.writeText(code).then(
    () => say(t('copied'), true),
    () => say(t('copyFailed'), false),
  );
}

/** A code block: its language, a Copy code button whose result is announced, and the code. */
export function renderCode(token: Tokens.Code, t: Translate): TemplateResult {
  const lang = (token.lang ?? '').match(/^\S*/)![0];
  // The status span is static in the template, so the click handler may write its text.
  return html`<div class="code-block">
    <div class="code-bar">
      <span class="code-lang">${decodeEntities(lang)}</span>
      <button class="copy" type="button" @click=${(event: Event) => copyCode(event, token.text, t)}><span class="copy-label">${t('copyCode')}</span><span class="copied"><span aria-hidden="true">✓ </span>${t('copied')}</span></button>
      <span class="visually-hidden" role="status"></span>
    </div>
    <pre tabindex="0" dir="ltr"><code class=${lang ? `language-${decodeEntities(lang)}` : nothing}>${token.text}</code></pre>
  </div>`;
}
