// Hono: the Fetch handler mounted as a route, no adapter.
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { createSessionHandler } from 'agent-chat/server';

const sessionHandler = createSessionHandler({
  apiKey: 'key',
  projectId: 'proj',
  baseUrl: 'https://agent.example.com',
  getOwnerId: () => null,
  rateLimit: (request) => (request.headers.get('x-flood') ? 30 : undefined),
  // The service, in process: the request the handler would send over the network.
  fetch: async (url, init) => {
    // The handler sends the URL as a string.
    assert.equal(url, 'https://agent.example.com/agent/v1/projects/proj/agent/sessions/');
    assert.equal(init.redirect, 'manual');
    return Response.json({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' });
  },
});

const app = new Hono();
app.post('/api/agent-session', (c) => sessionHandler(c.req.raw));

const ok = await app.request('/api/agent-session', { method: 'POST' });
assert.equal(ok.status, 200);
assert.equal(ok.headers.get('agent-chat-owner-key'), '-');
assert.equal((await ok.json()).session_token, 'tok');
const limited = await app.request('/api/agent-session', { method: 'POST', headers: { 'X-Flood': '1' } });
assert.equal(limited.status, 429);
assert.equal(limited.headers.get('retry-after'), '30');
console.log('hono: session route, owner key "-", rateLimit 429');
