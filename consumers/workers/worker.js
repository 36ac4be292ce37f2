// A Cloudflare Worker (module syntax) using only agent-chat/server: no nodejs_compat needed.
// It reaches the agent service with the runtime's own fetch, or through a service binding.
import { createSessionHandler } from 'agent-chat/server';

// Made once per isolate, on the first request (env arrives with it): the handler keeps the
// per-visitor session limit, which a handler made per request would forget at once.
let handler;

export default {
  fetch(request, env) {
    handler ??= createSessionHandler({
      apiKey: env.AGENT_API_KEY,
      projectId: 'proj',
      baseUrl: env.AGENT_BASE_URL ?? 'https://agent.example.com',
      getOwnerId: (request) => request.headers.get('x-user'),
      fetch: env.SERVICE ? (url, init) => env.SERVICE.fetch(url, init) : undefined,
    });
    return handler(request);
  },
};
