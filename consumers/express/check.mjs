// Express 5 with express.json() in front of every route, as most apps have it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import express from 'express';
import { createSessionHandler, ownerKey, toNodeHandler } from 'agent-chat/server/node';

const listen = (server) =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)),
  );

// A stand-in agent service on loopback (plain http is allowed there).
const minted = [];
const service = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  minted.push({ key: req.headers['x-api-key'], body });
  res
    .writeHead(200, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' }));
});
const serviceUrl = await listen(service);

const app = express();
app.use(express.json());
app.post(
  '/api/agent-session',
  toNodeHandler(
    createSessionHandler({
      apiKey: 'key',
      projectId: 'proj',
      baseUrl: serviceUrl,
      getOwnerId: (request) => request.headers.get('x-user'),
    }),
  ),
);
app.post(
  '/echo',
  toNodeHandler(async (request) => Response.json({ got: await request.json() })),
);
app.get(
  '/cookies',
  toNodeHandler(async () => {
    const headers = new Headers();
    headers.append('Set-Cookie', 'a=1; Path=/');
    headers.append('Set-Cookie', 'b=2; Path=/');
    return new Response('ok', { headers });
  }),
);
const server = createServer(app);
const origin = await listen(server);

try {
  const session = await fetch(`${origin}/api/agent-session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-User': 'alice' },
    body: '{"external_owner_id":"mallory"}',
  });
  assert.equal(session.status, 200);
  assert.deepEqual(await session.json(), { session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' });
  assert.equal(session.headers.get('agent-chat-owner-key'), await ownerKey('alice', 'key'));
  assert.deepEqual(minted, [{ key: 'key', body: '{"external_owner_id":"alice"}' }]);

  const echo = await fetch(`${origin}/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"message":"héllo"}',
  });
  assert.equal(echo.status, 200, 'a JSON body already read by express.json() reaches the handler');
  assert.deepEqual(await echo.json(), { got: { message: 'héllo' } });

  const cookies = await fetch(`${origin}/cookies`);
  assert.deepEqual(cookies.headers.getSetCookie(), ['a=1; Path=/', 'b=2; Path=/']);
  console.log('express: session endpoint, JSON after express.json(), two Set-Cookie headers');
} finally {
  server.close();
  service.close();
}
