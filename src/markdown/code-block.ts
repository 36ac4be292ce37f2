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

/**
 * Lines longer than this may not fit the narrowest panel (a 390 px phone shows about 40
 * characters of code): their block offers Wrap lines. Shorter code never needs it.
 */
export const WRAP_FROM_CHARS = 40;

/** Wrap lines: pressed, the block's long lines wrap; again, they scroll sideways. */
function toggleWrap(event: Event): void {
  const button = event.currentTarget as HTMLButtonElement;
  const wrap = button.getAttribute('aria-pressed') !== 'true';
  button.setAttribute('aria-pressed', String(wrap));
  button.closest('.code-block')!.toggleAttribute('data-wrap', wrap);
}

/**
 * A code block: its language, Wrap lines when a line may be too long to show, a Copy code
 * button whose result is announced, and the code. What the buttons change (pressed, wrapped,
 * copied) are attributes absent from the template, so a render never resets them.
 */
export function renderCode(token: Tokens.Code, t: Translate): TemplateResult {
  const lang = (token.lang ?? '').match(/^\S*/)![0];
  const long = token.text.split('\n').some((line) => line.length > WRAP_FROM_CHARS);
  // The status span is static in the template, so the click handler may write its text.
  return html`<div class="code-block">
    <div class="code-bar">
      <span class="code-lang">${decodeEntities(lang)}</span>
      ${long ? html`<button class="wrap" type="button" aria-pressed="false" @click=${toggleWrap}>${t('wrapLines')}</button>` : nothing}
      <button class="copy" type="button" @click=${(event: Event) => copyCode(event, token.text, t)}><span class="copy-label">${t('copyCode')}</span><span class="copied"><span aria-hidden="true">✓ </span>${t('copied')}</span></button>
      <span class="visually-hidden" role="status"></span>
    </div>
    <pre tabindex="0" dir="ltr"><code class=${lang ? `language-${decodeEntities(lang)}` : nothing}>${token.text}</code></pre>
  </div>`;
}
