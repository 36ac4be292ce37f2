// A Cloudflare Worker (module syntax) using only agent-chat/server: no nodejs_compat.
import { createSessionHandler } from 'agent-chat/server';

export default {
  fetch(request, env) {
    return createSessionHandler({
      apiKey: env.AGENT_API_KEY,
      projectId: 'proj',
      baseUrl: 'https://agent.example.com',
      getOwnerId: () => request.headers.get('x-user'),
      fetch: env.SERVICE ? (url, init) => env.SERVICE.fetch(url, init) : undefined,
    })(request);
  },
};
