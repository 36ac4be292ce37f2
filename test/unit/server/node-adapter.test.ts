import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../../server/node.js';
import { readChatStream } from '../../../src/api/stream.js';
import { PROJECT, makeService } from '../../fixtures/service.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function listen(handler: ReturnType<typeof toNodeHandler>): Promise<string> {
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('toNodeHandler', () => {
  it('serves the reference service over node:http, streaming the chat answer', async () => {
    const ctx = makeService();
    const origin = await listen(toNodeHandler(ctx.service.handle));
    const agent = `${origin}/agent/v1/projects/${PROJECT.id}/agent`;
    const minted = await fetch(`${agent}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
      body: '{"external_owner_id":"alice"}',
    });
    const { session_token } = await minted.json();
    const response = await fetch(`${agent}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'theming' }),
    });
    const types: string[] = [];
    for await (const event of readChatStream(response.body!)) types.push(event.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('end');
  });

  it('aborts the request signal when the client disconnects', async () => {
    // The agent service no longer stops on a disconnect (wire contract §4), but other Fetch
    // handlers may: the adapter still tells them.
    let aborted = false;
    const origin = await listen(
      toNodeHandler(async (request) => {
        request.signal.addEventListener('abort', () => {
          aborted = true;
        });
        return new Response(
          new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('first')) }),
        );
      }),
    );
    const controller = new AbortController();
    const response = await fetch(origin, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => aborted, { timeout: 5_000 }).toBe(true);
  }, 10_000);

  it('keeps every Set-Cookie header', async () => {
    const origin = await listen(
      toNodeHandler(async () => {
        const headers = new Headers({ 'Content-Type': 'text/plain' });
        headers.append('Set-Cookie', 'a=1; Path=/; HttpOnly');
        headers.append('Set-Cookie', 'b=2; Path=/; Secure');
        return new Response('ok', { headers });
      }),
    );
    const response = await fetch(origin);
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/; Secure']);
  });

  it('works after a body parser consumed the stream (express.json and friends)', async () => {
    const seen: unknown[] = [];
    const handler = toNodeHandler(async (request) => {
      seen.push(await request.json());
      return Response.json({ ok: true });
    });
    // What body-parser does: read the stream, set req.body and mark req._body.
    server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        Object.assign(req, { body: JSON.parse(raw), _body: true });
        void handler(req, res);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const response = await fetch(origin, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"message":"héllo","n":1}',
    });
    expect(response.status).toBe(200);
    expect(seen).toEqual([{ message: 'héllo', n: 1 }]);
  });

  it('streams an untouched request body to the handler', async () => {
    const origin = await listen(
      toNodeHandler(async (request) => new Response(`got ${(await request.text()).length}`)),
    );
    const response = await fetch(origin, { method: 'POST', body: 'x'.repeat(200_000) });
    expect(await response.text()).toBe('got 200000');
  });
});
