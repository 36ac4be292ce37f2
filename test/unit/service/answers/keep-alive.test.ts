/**
 * A model that thinks before its first token, behind a proxy that cuts a response silent for
 * 1 s: the service's keep-alive records hold the stream open (decision 586).
 */
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../service/index.js';
import { readChatStream } from '../../../../src/api/stream.js';
import type { StreamEvent } from '../../../../src/api/types.js';
import { idleProxy } from '../../../fixtures/idle-proxy.js';
import { served } from '../../../fixtures/served.js';
import { PROJECT } from '../../../fixtures/service.js';

const agentPath = `/agent/v1/projects/${PROJECT.id}/agent`;
const THINKS_MS = 3_000;

/** Says nothing for `ms`, then answers in one piece. */
const thinker = (ms: number): Agent => ({
  async *answer({ signal }) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    });
    yield { type: 'text', text: 'Thought it over.' };
  },
});

/** Asks through a 1 s idle-timeout proxy; the widget's own reader reads the answer. */
async function askBehindProxy(streamKeepAliveMs: number) {
  const { url } = await served({
    projects: [PROJECT],
    agent: thinker(THINKS_MS),
    rateLimit: false,
    streamKeepAliveMs,
  });
  const proxy = await idleProxy(url, 1_000);
  const { session_token: token } = await (
    await fetch(`${url}${agentPath}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey },
    })
  ).json();
  const response = await fetch(`${proxy.url}${agentPath}/chat/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ integration_id: 'int_demo', message: 'Think first.' }),
  });
  const events: StreamEvent[] = [];
  for await (const event of readChatStream(response.body!)) events.push(event);
  return { events, seen: proxy.seen };
}

describe('keep-alive records behind a proxy with an idle timeout', { timeout: 20_000 }, () => {
  it('every 300 ms of silence: the answer arrives whole in its one stream, nothing cut, no reattach', async () => {
    const { events, seen } = await askBehindProxy(300);
    expect(events.map((e) => e.type)).toEqual(['start', 'delta', 'end']);
    expect(events[1]).toEqual({ type: 'delta', text: 'Thought it over.' });
    expect(seen).toEqual({ requests: [`POST ${agentPath}/chat/`], cuts: 0 });
  });

  it('with none (0), the proxy cuts the silent stream and the answer reads as interrupted', async () => {
    const { events, seen } = await askBehindProxy(0);
    expect(events.map((e) => e.type)).toEqual(['start', 'interrupted']);
    expect(seen.cuts).toBe(1);
  });
});
