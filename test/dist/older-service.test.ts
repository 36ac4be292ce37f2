import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, launchChromium, openWatched } from './chromium.js';
import { startPublicService, staticSite } from './public-site.js';

/**
 * The headers a wire contract v4 service from before the Idempotency-Key (decision 453) allowed
 * in its CORS preflight, recorded from that release (`Access-Control-Allow-Headers`).
 */
const OLDER_ALLOW_HEADERS = 'Authorization, Content-Type';

/**
 * This service on its own origin as the older release's CORS answered: every request and
 * answer passed through as they are, the preflight's allowed headers those of the older one.
 */
async function withOlderCors(target: string) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const {
      host: _host,
      connection: _connection,
      ...headers
    } = req.headers as IncomingHttpHeaders & Record<string, string>;
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
      redirect: 'manual',
    });
    const answer = Object.fromEntries(upstream.headers);
    // fetch has undone any gzip: the bytes go on as they are, with their own length.
    delete answer['content-encoding'];
    delete answer['content-length'];
    if (answer['access-control-allow-headers']) answer['access-control-allow-headers'] = OLDER_ALLOW_HEADERS;
    res.writeHead(upstream.status, answer);
    if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let browser: Browser;
let service: Awaited<ReturnType<typeof startPublicService>>;
let older: Awaited<ReturnType<typeof withOlderCors>>;
let site: Awaited<ReturnType<typeof staticSite>>;

beforeAll(async () => {
  site = await staticSite(() => ({ ...service, url: older.url }));
  [browser, service] = await Promise.all([launchChromium(), startPublicService(site.origin)]);
  older = await withOlderCors(service.url);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.running.close();
  await Promise.all([older?.close(), site?.close()]);
});

describe('this widget against a v4 service whose CORS predates the Idempotency-Key (decision 730)', () => {
  it('a page on another origin gets its answers, its questions sent without the key, and the owner is told once', async () => {
    const warnings: string[] = [];
    const chats: (string | null)[] = [];
    const { page } = await openWatched(browser, site.origin, async (page) => {
      page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
      page.on('response', (response) => {
        const request = response.request();
        if (request.method() === 'POST' && request.url().endsWith('/chat/'))
          chats.push(request.headers()['idempotency-key'] ?? null);
      });
    });
    expect(await ask(page, 'How do I theme the widget?')).toContain('Style the widget from your page');
    await page.locator('agent-chat').getByRole('textbox', { name: 'Message' }).fill('How do tokens work?');
    await page.locator('agent-chat').getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => chats.length, { timeout: 15_000 }).toBe(2);
    // The questions that reached the service, each once and without the header its CORS refuses.
    expect(chats).toEqual([null, null]);
    expect(warnings.filter((text) => text.includes('refuses the Idempotency-Key header'))).toHaveLength(1);
    await page.close();
  });
});
