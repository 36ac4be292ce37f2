import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentService,
  DemoAgent,
  memoryStores,
  type AgentServiceOptions,
} from '../../../../service/index.js';
import { serve } from '../../../../service/node.js';
import { PROJECT, readRecords } from '../../../fixtures/service.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function served(options: Partial<AgentServiceOptions> = {}) {
  const storage = memoryStores();
  const running = await serve(
    createAgentService({ projects: [PROJECT], storage, rateLimit: false, ...options }),
    { port: 0, log: () => {} },
  );
  closers.push(() => running.close());
  const agent = `${running.url}/agent/v1/projects/${PROJECT.id}/agent`;
  // With an owner: history is read back through the API.
  const minted = await fetch(`${agent}/sessions/`, {
    method: 'POST',
    headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ external_owner_id: 'visitor-1' }),
  });
  const { session_token: token } = (await minted.json()) as { session_token: string };
  return { agent, token, storage };
}

const chat = (agent: string, token: string, message: string, signal?: AbortSignal) =>
  fetch(`${agent}/chat/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ integration_id: 'int_demo', message }),
    signal,
  });

const QUESTION = 'How do I theme the widget?';

describe('serve(): answers written straight to the socket', () => {
  it('streams every record of an answer, and what streamed is what is stored', async () => {
    const { agent, token } = await served({ agent: new DemoAgent({ wordDelayMs: 2 }) });
    const response = await chat(agent, token, QUESTION);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const records = await readRecords(response.body!.getReader(), Number.POSITIVE_INFINITY);
    expect(records[0].type).toBe('stream_start');
    expect(records.at(-1)).toMatchObject({ type: 'identifiers', stream_end: true });
    const text = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    expect(text).toMatch(/^Style the widget from your page/);
    const thread = (await (
      await fetch(`${agent}/threads/${records[0].content.thread_id as string}/`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { messages: { content: string; status: string }[] };
    expect(thread.messages[1]).toMatchObject({ content: text, status: 'complete' });
  });

  it('goes on generating when the client leaves, and stores the whole answer', async () => {
    const { agent, token } = await served({ agent: new DemoAgent({ wordDelayMs: 5 }) });
    const leave = new AbortController();
    const response = await chat(agent, token, QUESTION, leave.signal);
    const [start] = await readRecords(response.body!.getReader(), 1);
    leave.abort();
    const url = `${agent}/threads/${start.content.thread_id as string}/`;
    let answer: { content: string; status: string } | undefined;
    for (let i = 0; i < 200 && answer?.status !== 'complete'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = (
        (await (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
          messages: { content: string; status: string }[];
        }
      ).messages[1];
    }
    expect(answer?.status).toBe('complete');
    expect(answer?.content).toMatch(/^Style the widget from your page[\s\S]{200,}/);
  });

  it('takes a chunked body (no Content-Length) and refuses one past the 64 KiB limit', async () => {
    const { agent, token } = await served({ agent: new DemoAgent() });
    const send = (body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${agent}/chat/`,
          { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, body: text }));
          },
        );
        req.on('error', reject);
        // Two pieces, so the body really comes in chunks.
        req.write(body.slice(0, 10));
        req.end(body.slice(10));
      });
    const ok = await send(JSON.stringify({ integration_id: 'int_demo', message: QUESTION }));
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"type":"identifiers"');
    const tooLarge = await send(
      JSON.stringify({ integration_id: 'int_demo', message: 'x'.repeat(70 * 1024) }),
    );
    expect(tooLarge.status).toBe(413);
  });
});
