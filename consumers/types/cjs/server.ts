// The same from a CommonJS module (under node16 and nodenext this resolves the require condition).
import { createSessionHandler } from 'agent-chat/server';
import { toNodeHandler } from 'agent-chat/server/node';

export const handler = toNodeHandler(
  createSessionHandler({
    apiKey: 'key',
    projectId: 'proj',
    baseUrl: 'https://agent.example.com',
    getOwnerId: () => null,
  }),
);
