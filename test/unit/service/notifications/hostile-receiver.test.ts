/**
 * A receiver that works against the service: one that sends its head and then stalls its body,
 * and one that answers without end. An attempt is over within its timeout either way, having
 * read no more than the few hundred bytes the console shows.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sendOnce } from '../../../../service/notifications/deliver.js';
import type { ClaimedDelivery } from '../../../../service/storage/types.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function hostile(answer: (response: import('node:http').ServerResponse) => void) {
  let written = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
  });
  server.on('connection', (socket) => closers.push(() => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    written: () => written,
    count: (n: number) => (written += n),
  };
}

const delivery = (url: string) =>
  ({ id: 'del_1', url, secret: 'whsec_c2VjcmV0', body: '{}', attempts: 0 }) as unknown as ClaimedDelivery;
const options = { timeoutMs: 500, network: { allowPrivate: true, resolve: async () => [] } };

it('a receiver that stalls after its head is given up at the timeout', async () => {
  const { url } = await hostile((response) => {
    response.writeHead(500, { 'Content-Type': 'text/plain' });
    response.write('busy');
  });
  const started = performance.now();
  const result = await sendOnce(delivery(url), Date.now(), options);
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(result).toMatchObject({ code: 500, sent: false, retry: true });
});

it('a receiver that answers without end is read for 2 KB, then cut off', async () => {
  const receiver = await hostile((response) => {
    response.writeHead(500, { 'Content-Type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (response.write(chunk)) if (receiver.count(chunk.length) > 256 * 1024 * 1024) return;
      response.once('drain', pump);
    };
    pump();
  });
  const result = await sendOnce(delivery(receiver.url), Date.now(), options);
  expect(result.error).toBe('x'.repeat(200));
  // What the receiver got out before the service hung up: socket buffers, not the 256 MB it offered.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(receiver.written()).toBeLessThan(16 * 1024 * 1024);
});
