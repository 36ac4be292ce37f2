// Server-side rendering: the page's module graph imports the widget in Node, where there is no DOM.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';

const pkg = await import('agent-chat');
assert.equal(typeof globalThis.customElements, 'undefined', 'nothing registered, no DOM global invented');
assert.equal(typeof globalThis.HTMLElement, 'undefined');
assert.equal(typeof pkg.TokenManager, 'function');
assert.equal(typeof createRequire(import.meta.url)('agent-chat').createApiClient, 'function');

const html = renderToString(
  createElement('agent-chat', {
    mode: 'inline',
    'project-id': 'proj',
    'session-endpoint': '/api/agent-session',
  }),
);
assert.match(
  html,
  /^<agent-chat mode="inline" project-id="proj" session-endpoint="\/api\/agent-session"><\/agent-chat>$/,
);
console.log('ssr-node: import and require in Node, React renderToString of <agent-chat>');
