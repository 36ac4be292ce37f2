import { createSessionHandler } from '../../server/session-handler.js';
import { createAgentService } from '../../service/index.js';
import { ChatSession, type ChatSessionConfig, type ChatSnapshot } from '../../src/chat/chat-session.js';
import type { RemoteChange, StoredMemory, DeviceMemoryStore } from '../../src/chat/device-memory-store.js';
import type { ChatMessage, ErrorInfo } from '../../src/chat/types.js';

/**
 * ChatSession in Node against the reference service and a site's session endpoint, in process,
 * with a device shared by every "tab" (test/unit/chat/).
 */
export const BASE = 'https://agent.test';
export const SESSION_URL = 'https://site.test/api/session';
export const PROJECT = { id: 'proj_demo', apiKey: 'key_demo', integrationIds: ['int_demo'] };
export const AGENT = `${BASE}/agent/v1/projects/${PROJECT.id}/agent`;
export const keyOf = (owner: string | null) => (owner === null ? '-' : `key-${owner}`);

/**
 * The device: one map shared by every "tab". Like the real store, a save tells the other tabs
 * what was written (an unchanged owner part is not written or told again), and a wipe too.
 */
export function device() {
  const data = new Map<string, StoredMemory>();
  /** Kept threads' messages (a public visitor's), by scope and thread id. */
  const kept = new Map<string, ChatMessage[]>();
  const listeners = new Set<(change: RemoteChange) => void>();
  const shared = (state: StoredMemory | undefined) =>
    JSON.stringify(state ? { ...state, open: undefined, threadListOpen: undefined } : null);
  const open = (scope: string): DeviceMemoryStore => {
    let mine: ((change: RemoteChange) => void) | undefined;
    let last = '';
    const announce = (change: RemoteChange) =>
      listeners.forEach((l) => l !== mine && l(structuredClone(change)));
    return {
      load: async (live = false) => {
        const state = structuredClone(data.get(scope));
        last = shared(state);
        if (state && !live)
          state.messages = state.messages.map((m) =>
            m.status === 'streaming' ? { ...m, status: 'interrupted' } : m,
          );
        return state;
      },
      save: async (state) => {
        // As the real store: the thread that stops being the active one keeps its messages while its row stays.
        const before = data.get(scope);
        if (before?.activeThreadId && before.activeThreadId !== state.activeThreadId)
          kept.set(`${scope} ${before.activeThreadId}`, before.messages);
        for (const key of kept.keys())
          if (key.startsWith(`${scope} `) && !state.threads.some((t) => key === `${scope} ${t.id}`))
            kept.delete(key);
        data.set(scope, structuredClone(state));
        if (shared(state) === last) return;
        last = shared(state);
        announce({ state });
      },
      clear: async () => {
        data.delete(scope);
        for (const key of kept.keys()) if (key.startsWith(`${scope} `)) kept.delete(key);
        last = '';
        announce({});
      },
      watch: (listener) => {
        mine = (change) => {
          last = shared(change.state);
          listener(change);
        };
        listeners.add(mine);
        return () => listeners.delete(mine!);
      },
      // In Node nothing is cut off by a navigation: the device's own writes land.
      stash: () => {},
      keptThread: async (id) =>
        structuredClone(
          data.get(scope)?.activeThreadId === id ? data.get(scope)?.messages : kept.get(`${scope} ${id}`),
        ),
    };
  };
  return { open, dump: () => JSON.stringify([...data.values()]) };
}

/** The reference service and a site's session endpoint (with the owner-key header), in process. */
export function backend() {
  const service = createAgentService({ projects: [PROJECT], rateLimit: false });
  let owner: string | null = null;
  const requests: string[] = [];
  let override: ((request: Request) => Promise<Response | undefined>) | undefined;
  const sessions = createSessionHandler({
    rateLimit: false,
    apiKey: PROJECT.apiKey,
    projectId: PROJECT.id,
    baseUrl: BASE,
    getOwnerId: () => owner,
    fetch: (input, init) => service.handle(new Request(input, init)),
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    const overridden = await override?.(request);
    if (overridden) return overridden;
    if (request.url !== SESSION_URL) return service.handle(request);
    const response = await sessions(request);
    const headers = new Headers(response.headers);
    headers.set('Agent-Chat-Owner-Key', keyOf(owner));
    return new Response(response.body, { status: response.status, headers });
  };
  return {
    fetch,
    requests,
    signIn: (next: string | null) => void (owner = next),
    override: (handler: typeof override) => void (override = handler),
  };
}

export type Backend = ReturnType<typeof backend>;
export type Device = ReturnType<typeof device>;

export function session(server: Backend, memory: Device, config: Partial<ChatSessionConfig> = {}) {
  const errors: ErrorInfo[] = [];
  const feedback: Array<{ questionAnswerId: string; reaction: string }> = [];
  const current: ChatSessionConfig = {
    projectId: PROJECT.id,
    integrationId: 'int_demo',
    baseUrl: BASE,
    sessionEndpoint: SESSION_URL,
    ownerKey: '',
    ...config,
  };
  const chat = new ChatSession(
    {
      config: () => current,
      scope: () => 'proj_demo:int_demo',
      openStore: memory.open,
      fetch: server.fetch,
      saveDelayMs: 0,
    },
    { onChange: () => {}, onError: (e) => errors.push(e), onFeedback: (f) => feedback.push(f) },
  );
  chat.connect();
  return { chat, errors, feedback, config: current };
}

export const texts = (snapshot: ChatSnapshot) =>
  snapshot.conversation.messages.map((m) => m.content.slice(0, 40));
export const settle = async (chat: ChatSession) => {
  await chat.memory.hydrated;
  await chat.memory.flush();
};
