/** The console's Notifications page in Chromium: add a webhook, its secret once, a test delivered or refused, delete. */
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  DemoAgent,
  createAgentService,
  memoryStores,
  nodeConsole,
  scryptPasswords,
  serve,
} from '../../service/node.js';
import { ADMIN, PROJECT, axe } from './console-site.js';
import { LOOKS, SHOTS, cleanup, consoleInChromium, open, signIn } from './console-chromium.js';

consoleInChromium();

/** A receiver on this machine answering each request with `status`; what it received. */
async function receiver(status: number) {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(status).end(status === 200 ? 'ok' : 'invalid_payload');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function openNotifications(look: (typeof LOOKS)[number] = LOOKS[0], url?: string) {
  // Another service than the shared one has its own sessions: sign in there.
  const opened = await open({ ...look, url, signedIn: !url });
  if (url) await signIn(opened.page);
  await opened.page.getByRole('link', { name: 'Notifications', exact: true }).click();
  await opened.page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
  return opened;
}

describe('the console in Chromium: Notifications', () => {
  it('says, where the service does not know its public URL, that the messages carry no link and how to give one', async () => {
    // The console's service here is started without a public URL, as `--public-url` unset.
    const { page, context } = await openNotifications();
    const note = page.getByText(/^Messages carry no link to the conversation/);
    await note.waitFor({ timeout: 5_000 });
    expect(await note.getByText('--public-url https://…', { exact: true }).count()).toBe(1);
    await context.close();
  });

  it('adds a webhook (its secret shown once), sends a test that arrives signed, shows a refused one and why, deletes', async () => {
    const ok = await receiver(200);
    const refusing = await receiver(500);
    const { page, context, errors, violations } = await openNotifications();
    const add = async (url: string) => {
      await page.getByRole('textbox', { name: /Webhook address/ }).fill(url);
      await page.getByRole('checkbox', { name: 'An answer fails' }).check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = page.getByRole('textbox', { name: 'Signing secret' });
      await expect.poll(() => secret.inputValue()).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => secret.count()).toBe(0);
    };
    await add(ok.url);
    await add(refusing.url);
    const shown = (url: string) => `${new URL(url).origin}/hook/…`;

    await page.getByRole('button', { name: `Send a test to ${shown(ok.url)}` }).click();
    const delivered = page.getByRole('region', { name: `Recent deliveries to ${shown(ok.url)}` });
    await expect
      .poll(() => delivered.getByRole('row').nth(1).textContent())
      .toMatch(/Test\s+Delivered \(200\)\s+1/);
    expect(ok.received).toHaveLength(1);
    expect(ok.received[0].headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(ok.received[0].body)).toMatchObject({
      event: 'test',
      text: expect.stringContaining('A test'),
    });

    await page.getByRole('button', { name: `Send a test to ${shown(refusing.url)}` }).click();
    const refused = page.getByRole('region', { name: `Recent deliveries to ${shown(refusing.url)}` });
    await expect
      .poll(() => refused.getByRole('row').nth(1).textContent())
      .toMatch(/Failed \(500\)\s+invalid_payload/);
    expect(await page.getByRole('checkbox', { name: 'A visitor asks for a person' }).isChecked()).toBe(true);
    expect(await axe(page)).toEqual([]);

    await page.getByRole('button', { name: `Delete ${shown(refusing.url)}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await expect.poll(() => refused.count()).toBe(0);
    await expect.poll(() => delivered.count()).toBe(1);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is axe-clean in light, dark and at 390 px (screenshots to look at)', async () => {
    for (const look of LOOKS) {
      const { page, context } = await openNotifications(look);
      await page
        .getByRole('region', { name: /Recent deliveries to/ })
        .first()
        .waitFor();
      expect(await axe(page), look.name).toEqual([]);
      if (SHOTS)
        await page.screenshot({ path: `${SHOTS}/notifications-webhook-${look.name}.png`, fullPage: true });
      await context.close();
    }
  });

  it('a service that keeps webhooks off its own network refuses such an address in words, naming the setting', async () => {
    const storage = memoryStores();
    const guarded = await serve(
      createAgentService({
        projects: [PROJECT],
        storage,
        agent: new DemoAgent({ wordDelayMs: 0 }),
        console: await nodeConsole(),
        // The name an attacker would point at the cloud's metadata service.
        webhookResolve: async () => [{ address: '169.254.169.254', family: 4 }],
      }),
      { port: 0, log: () => {} },
    );
    cleanup.push(() => guarded.close());
    await storage.accounts.createAdmin({
      username: ADMIN.username,
      passwordHash: await scryptPasswords.hash(ADMIN.password),
      createdAt: Date.now(),
    });
    const { page, context, errors, violations } = await openNotifications(LOOKS[0], guarded.url);
    await page.getByRole('textbox', { name: /Webhook address/ }).fill('https://hooks.example.com/services/x');
    await page.getByRole('checkbox', { name: 'An answer fails' }).check();
    // The list reloads after the refused add: the words must outlast it.
    const reloaded = page.waitForResponse(
      (r) => r.request().method() === 'GET' && r.url().endsWith(`/projects/${PROJECT.id}/webhooks`),
    );
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await reloaded;
    await page.evaluate(() => new Promise(requestAnimationFrame));
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain(
      'This address cannot be used: hooks.example.com resolves to 169.254.169.254, not a public address',
    );
    expect(await alert.textContent()).toContain(
      '--allow-private-webhooks (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1)',
    );
    // Nothing was saved, and no secret shown.
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
    expect(await storage.notifications.listWebhooks(PROJECT.id)).toEqual([]);
    expect(await axe(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/notifications-refused.png`, fullPage: true });
    expect(await violations()).toEqual([]);
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    await context.close();
  });
});
