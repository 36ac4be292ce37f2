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
 * strip an unknown element or its attributes. Added once the document is parsed, and only where
 * the page has no <agent-chat> of its own: a page that places one, or the same tag pasted
 * twice, keeps one chat. The settings are read now: a builder may take the tag away later.
 */
export function addFromTag(tag: Element | null): void {
  if (!tag?.hasAttribute('data-project-id')) return;
  const settings = Array.from(tag.attributes).filter(
    ({ name }) => name.startsWith('data-') && SETTINGS.has(name.slice(5)),
  );
  const add = () => {
    if (document.querySelector('agent-chat')) return;
    const chat = document.createElement('agent-chat');
    for (const { name, value } of settings) chat.setAttribute(name.slice(5), value);
    document.body.append(chat);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', add, { once: true });
  else add();
}
