// A Node server (ESM) with no DOM types: the session endpoint and the Node adapter.
import { createServer } from 'node:http';
import { createSessionHandler, ownerKey } from 'agent-chat/server';
import { toNodeHandler } from 'agent-chat/server/node';

const handler = createSessionHandler({
  apiKey: 'key',
  projectId: 'proj',
  baseUrl: 'https://agent.example.com',
  getOwnerId: (request: Request) => request.headers.get('x-user'),
});
createServer(toNodeHandler(handler));
console.log(typeof ownerKey);
