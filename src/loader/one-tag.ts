import { PROPERTIES } from './surface.js';

/**
 * The element's attributes a tag may set as `data-…`: its properties' (`projectId` is
 * `project-id`, `opened` is `open`) and `lang`, so a builder's own data-* on the tag stay off it.
 */
const SETTINGS = new Set([
  ...PROPERTIES.map((name) =>
    name === 'opened' ? 'open' : name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
  ),
  'lang',
]);

/**
 * One script tag installs the chat (decision 744): a tag with `data-project-id` gives the
 * floating <agent-chat> its own data-* settings, for site builders that keep a <script> but
 * strip an unknown element or its attributes. The same settings may be its src's query
 * (`?project-id=…`), for builders that keep the src alone (755); data-* win. Added once the
 * document is parsed, and only where the page has no <agent-chat> of its own: a page that
 * places one, or the same tag pasted twice, keeps one chat. The settings are read now: a
 * builder may take the tag away later.
 */
export function addFromTag(tag: HTMLScriptElement | null): void {
  if (!tag) return;
  const settings = [
    ...(tag.src ? new URL(tag.src).searchParams : []),
    ...Array.from(tag.attributes, ({ name, value }) => [
      name.startsWith('data-') ? name.slice(5) : '',
      value,
    ]),
  ].filter(([name]) => SETTINGS.has(name));
  const add = () => {
    if (document.querySelector('agent-chat')) return;
    const chat = document.createElement('agent-chat');
    for (const [name, value] of settings) chat.setAttribute(name, value);
    document.body.append(chat);
    yieldToOthers(chat);
  };
  if (settings.some(([name]) => name === 'project-id')) whenReady('DOMContentLoaded', add);
  // A tag left with its src alone and a page without a chat: the owner sees nothing, so say why.
  else whenReady('load', warnWithoutChat);
}

/**
 * How long after `load` a page's own script may still add its <agent-chat> before a tag without
 * settings says there is none (decision 800): a single-page app mounts it once its data or route
 * has come.
 */
export const LATE_CHAT_MS = 10_000;

/** Warns once no <agent-chat> has come for LATE_CHAT_MS; never once one has (800). */
function warnWithoutChat(): void {
  const chat = () => document.querySelector('agent-chat');
  if (chat()) return;
  // One query per batch of the page's changes, until a chat comes (no warning) or these seconds pass.
  const watch = new MutationObserver(() => {
    if (!chat()) return;
    clearTimeout(warning);
    watch.disconnect();
  });
  watch.observe(document, { childList: true, subtree: true });
  const warning = setTimeout(() => {
    watch.disconnect();
    console.warn(
      "[agent-chat] No chat on this page: the loader's tag has no data-project-id and the page no <agent-chat>. Where a site builder removes a tag's data-*, put the settings in its src: agent-chat.loader.iife.js?project-id=…&integration-id=…&base-url=…",
    );
  }, LATE_CHAT_MS);
}

/** Runs `then` once the document has reached `event` (`DOMContentLoaded` or `load`), at once if it has. */
function whenReady(event: string, then: () => void): void {
  if (document.readyState === 'loading' || (event === 'load' && document.readyState !== 'complete'))
    addEventListener(event, then, { once: true });
  else then();
}

/**
 * A framework that mounts its own <agent-chat> after the page was parsed gets one chat (756):
 * the one added here goes, unless the visitor has it open (their conversation stays, and it
 * goes at the page's next change after they close it). Shadow roots are not looked into.
 */
function yieldToOthers(chat: Element): void {
  const watch = new MutationObserver(() => {
    if (!chat.hasAttribute('open') && document.querySelectorAll('agent-chat').length > 1) chat.remove();
    if (!chat.isConnected) watch.disconnect();
  });
  watch.observe(document, { childList: true, subtree: true });
}
