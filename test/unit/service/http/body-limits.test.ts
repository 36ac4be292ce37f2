import { describe, expect, it } from 'vitest';
import { memoryStores } from '../../../../service/index.js';
import { AGENT, PROJECT, errorBody, makeService } from '../../../fixtures/service.js';
import { raw, served } from '../../../fixtures/served.js';

const agentPath = `/agent/v1/projects/${PROJECT.id}/agent`;

describe('request bodies', () => {
  it('stops reading a streamed body once it passes 64 KiB and answers 413', async () => {
    const { service } = makeService();
    const token = await (
      await service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': PROJECT.apiKey } }),
      )
    ).json();
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const response = await service.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.session_token}` },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect((await errorBody(response)).code).toBe('payload_too_large');
    // An endless body: only what the limit needed was ever read.
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + 2 * chunk.byteLength);
  });

  it('answers a chunked 2 MiB body over HTTP with 413 before it is all sent, memory bounded', async () => {
    const { url } = await served({ projects: [PROJECT], storage: memoryStores() });
    const before = process.memoryUsage().arrayBuffers;
    const req = raw(url, {
      method: 'POST',
      path: `${agentPath}/sessions/`,
      headers: {
        'X-API-Key': PROJECT.apiKey,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
      },
    });
    req.on('error', () => {}); // the server may close the socket once it has answered
    const status = new Promise<number>((resolve) =>
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      }),
    );
    let sent = 0;
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const write = () => {
      while (sent < 2 * 1024 * 1024 && !req.destroyed) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
    expect(await status).toBe(413);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
  });
});
