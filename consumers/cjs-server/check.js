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
  const handler = toNodeHandler(createSessionHandler({
    apiKey: 'key', projectId: 'proj', baseUrl: 'https://agent.example.com', getOwnerId: () => 'bob',
    fetch: async () => Response.json({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' }),
  }));
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${server.address().port}/`, { method: 'POST' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('agent-chat-owner-key'), await ownerKey('bob', 'key'));
    console.log(`cjs-server: require() of agent-chat ${VERSION}, /server and /server/node`);
  } finally {
    server.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
