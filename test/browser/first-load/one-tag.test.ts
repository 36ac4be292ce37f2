/**
 * What the loader's one tag copies onto the chat it adds (decision 744): the element's own
 * attributes from their data-*, and nothing of a builder's own data-*.
 */
import { afterEach, expect, it } from 'vitest';
import { addFromTag } from '../../../src/loader/one-tag.js';

const tag = (attributes: Record<string, string>) => {
  const script = document.createElement('script');
  for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value);
  return script;
};

afterEach(() => {
  for (const chat of document.querySelectorAll('agent-chat')) chat.remove();
});

it("sets the element's attributes from their data-*, and leaves a builder's own data-* on the tag", () => {
  addFromTag(
    tag({
      'data-project-id': 'proj_1',
      'data-integration-id': 'int_1',
      'data-open': '',
      'data-attachment-max-files': '2',
      'data-lang': 'fr',
      // A builder's or a CDN's own: none is an attribute of the chat.
      'data-cfasync': 'false',
      'data-style': 'display:none',
      'data-id': 'block-7',
      src: '/agent-chat.loader.iife.js',
    }),
  );
  const chats = document.querySelectorAll('agent-chat');
  expect(chats).toHaveLength(1);
  const names = Array.from(chats[0].attributes, (a) => `${a.name}=${a.value}`).sort();
  expect(names).toEqual([
    'attachment-max-files=2',
    'integration-id=int_1',
    'lang=fr',
    'open=',
    'project-id=proj_1',
  ]);
  expect(chats[0].parentElement).toBe(document.body);
});

it('adds none for a tag without data-project-id, nor a second where the page has one', () => {
  addFromTag(tag({ 'data-integration-id': 'int_1' }));
  addFromTag(null);
  expect(document.querySelectorAll('agent-chat')).toHaveLength(0);
  addFromTag(tag({ 'data-project-id': 'proj_1' }));
  addFromTag(tag({ 'data-project-id': 'proj_2' }));
  const chats = document.querySelectorAll('agent-chat');
  expect(chats).toHaveLength(1);
  expect(chats[0].getAttribute('project-id')).toBe('proj_1');
});

it('sets no event handler, style or slot from a data-* that names one', () => {
  // A builder that lets an editor add data-* to the tag must not let them add a handler to the chat.
  addFromTag(
    tag({
      'data-project-id': 'proj_1',
      'data-onclick': "window.__oneTag='click'",
      'data-onerror': "window.__oneTag='error'",
      'data-onfocus': "window.__oneTag='focus'",
      'data-style': 'position:fixed;inset:0',
      'data-slot': 'x',
      'data-part': 'x',
      'data-tabindex': '0',
      'data-autofocus': '',
      'data-is': 'x',
    }),
  );
  const chat = document.querySelector('agent-chat')!;
  expect(Array.from(chat.attributes, (a) => a.name)).toEqual(['project-id']);
  expect(chat.getAttribute('project-id')).toBe('proj_1');
  chat.dispatchEvent(new MouseEvent('click'));
  expect((window as { __oneTag?: string }).__oneTag).toBeUndefined();
});
