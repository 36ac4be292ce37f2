// A CommonJS server: require() of the server helpers and of the DOM-free root.
const assert = require('node:assert/strict');
const http = require('node:http');
const { createSessionHandler, toNodeHandler, ownerKey } = require('agent-chat/server/node');
const { createQueryClient } = require('agent-chat/server');
const { TokenManager, AgentChatError, VERSION } = require('agent-chat');

(async () => {
  assert.equal(typeof createQueryClient, 'function');
  assert.equal(typeof TokenManager, 'function');
  assert.ok(new AgentChatError('x', 'y') instanceof Error);
  const listen = (server) =>
    new Promise((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)),
    );
  // A stand-in agent service on loopback, reached with Node's own fetch.
  const seen = [];
  const service = http.createServer((req, res) => {
    seen.push(req.headers['x-api-key']);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' }));
  });
  const handler = toNodeHandler(
    createSessionHandler({
      apiKey: 'key',
      projectId: 'proj',
      baseUrl: await listen(service),
      getOwnerId: () => 'bob',
    }),
  );
  const server = http.createServer(handler);
  try {
    const response = await fetch(`${await listen(server)}/`, { method: 'POST' });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).session_token, 'tok');
    assert.equal(response.headers.get('agent-chat-owner-key'), await ownerKey('bob', 'key'));
    assert.deepEqual(seen, ['key']);
    console.log(
      `cjs-server: require() of agent-chat ${VERSION}, /server and /server/node; a session minted on Node ${process.versions.node}`,
    );
  } finally {
    server.close();
    service.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
