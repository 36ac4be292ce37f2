/**
 * What the loader's one tag copies onto the chat it adds (decision 744): the element's own
 * attributes from their data-* or its src's query (755), and nothing of a builder's own data-*;
 * what it says when a builder stripped them (755), and the chat it yields to a framework's (756).
 */
import { afterEach, expect, it, vi } from 'vitest';
import { LATE_CHAT_MS, addFromTag } from '../../../src/loader/one-tag.js';

const tag = (attributes: Record<string, string>) => {
  const script = document.createElement('script');
  for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value);
  return script;
};

afterEach(() => {
  vi.useRealTimers();
  for (const chat of document.querySelectorAll('agent-chat')) chat.remove();
  vi.restoreAllMocks();
});

/** After the observers of the DOM have run (they are microtasks). */
const settled = () => new Promise((resolve) => setTimeout(resolve));

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
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  addFromTag(tag({ 'data-integration-id': 'int_1' }));
  addFromTag(null);
  expect(document.querySelectorAll('agent-chat')).toHaveLength(0);
  addFromTag(tag({ 'data-project-id': 'proj_1' }));
  addFromTag(tag({ 'data-project-id': 'proj_2' }));
  const chats = document.querySelectorAll('agent-chat');
  expect(chats).toHaveLength(1);
  expect(chats[0].getAttribute('project-id')).toBe('proj_1');
});

it('sets no event handler, style or slot from a data-* or a query setting that names one', () => {
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
      // Nor from its src's query (755), which a builder's editor may write as freely.
      src: "/agent-chat.loader.iife.js?onclick=window.__oneTag='query'&style=display:none&slot=x",
    }),
  );
  const chat = document.querySelector('agent-chat')!;
  expect(Array.from(chat.attributes, (a) => a.name)).toEqual(['project-id']);
  expect(chat.getAttribute('project-id')).toBe('proj_1');
  chat.dispatchEvent(new MouseEvent('click'));
  expect((window as { __oneTag?: string }).__oneTag).toBeUndefined();
});

it("takes the settings from the src's query where a builder keeps the src alone", () => {
  addFromTag(
    tag({
      src: '/agent-chat.loader.iife.js?project-id=proj_q&integration-id=int_q&base-url=https://agent.example.com&lang=de&v=3',
    }),
  );
  const chats = document.querySelectorAll('agent-chat');
  expect(chats).toHaveLength(1);
  const names = Array.from(chats[0].attributes, (a) => `${a.name}=${a.value}`).sort();
  // `v`, a builder's cache buster, is not an attribute of the chat.
  expect(names).toEqual([
    'base-url=https://agent.example.com',
    'integration-id=int_q',
    'lang=de',
    'project-id=proj_q',
  ]);
});

it('warns where the tag has no settings and no chat has come some seconds after load', async () => {
  vi.useFakeTimers();
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  // Stripped by a builder: the src is all that is left. The page here has loaded.
  addFromTag(tag({ src: '/agent-chat.loader.iife.js' }));
  // A page's own script may still be on its way to adding one (800).
  await vi.advanceTimersByTimeAsync(LATE_CHAT_MS - 1);
  expect(warn).not.toHaveBeenCalled();
  await vi.advanceTimersByTimeAsync(1);
  expect(warn).toHaveBeenCalledTimes(1);
  const [words] = warn.mock.calls[0];
  expect(words).toContain('data-project-id');
  expect(words).toContain('agent-chat.loader.iife.js?project-id=');
  await vi.advanceTimersByTimeAsync(LATE_CHAT_MS * 3);
  expect(warn).toHaveBeenCalledTimes(1);
});

it('says nothing where a single-page app mounts its chat a second after load, even if a route then leaves it', async () => {
  vi.useFakeTimers();
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  addFromTag(tag({ src: '/agent-chat.loader.iife.js' }));
  // The app's data came: it renders its view, the chat deep in it.
  await vi.advanceTimersByTimeAsync(1_000);
  const view = document.createElement('main');
  view.innerHTML = '<section><agent-chat mode="inline"></agent-chat></section>';
  document.body.append(view);
  await vi.advanceTimersByTimeAsync(1_000);
  // The visitor goes to a route without a chat: the page had one, so there is nothing to say.
  view.remove();
  await vi.advanceTimersByTimeAsync(LATE_CHAT_MS * 2);
  expect(warn).not.toHaveBeenCalled();
});

it('says nothing where the page places its own chat', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  document.body.append(document.createElement('agent-chat'));
  addFromTag(tag({ src: '/agent-chat.loader.iife.js' }));
  expect(warn).not.toHaveBeenCalled();
});

it("takes its chat away when the page's own appears later, unless the visitor has it open", async () => {
  addFromTag(tag({ 'data-project-id': 'proj_1' }));
  const added = document.querySelector('agent-chat')!;
  // A framework mounts its own after the page was parsed.
  const own = document.createElement('agent-chat');
  own.setAttribute('mode', 'inline');
  document.body.append(document.createElement('main'));
  document.querySelector('main')!.append(own);
  await settled();
  expect(Array.from(document.querySelectorAll('agent-chat'))).toEqual([own]);
  expect(added.isConnected).toBe(false);

  own.remove();
  addFromTag(tag({ 'data-project-id': 'proj_2' }));
  const open = document.querySelector('agent-chat')!;
  // The visitor opened it (the element reflects `open`): their conversation stays.
  open.setAttribute('open', '');
  document.body.append(own);
  await settled();
  expect(document.querySelectorAll('agent-chat')).toHaveLength(2);
  // Closed, it yields at the page's next change.
  open.removeAttribute('open');
  document.body.append(document.createElement('p'));
  await settled();
  expect(Array.from(document.querySelectorAll('agent-chat'))).toEqual([own]);
});
