import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveFolder } from '../../scripts/static-site.mjs';
import { ADMIN, PROJECT, axe } from './console-site.js';
import { heldSite } from '../fixtures/held-site.js';
import {
  DemoAgent,
  createAgentService,
  memoryStores,
  nodeConsole,
  scryptPasswords,
  serve,
} from '../../service/node.js';
import {
  LOOKS,
  SHOTS,
  cleanup,
  consoleInChromium,
  firstHit,
  open,
  openSources,
  service,
} from './console-chromium.js';

consoleInChromium();

describe('the console in Chromium: Sources', () => {
  it('Sources: what each holds with its failures, a bad address refused, the ranked sections with scores, re-crawl and remove', async () => {
    const { page, context, errors, violations } = await openSources();
    const site = page.getByRole('region', { name: /\/docs\/$/ });
    await expect.poll(() => site.getByRole('definition').first().textContent()).toBe('6');
    await site.getByText(/^3 failures$/).click();
    // Each failed page says the page whose link to it is what to fix, as a link (decision 707).
    expect(await site.getByRole('listitem').allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /broken\.html: the server answered 500 \(linked from http:\/\/[^ ]+\/docs\/\)$/,
        ),
        expect.stringMatching(/missing\.html: not found \(404\) \(linked from http:\/\/[^ ]+\/docs\/\)$/),
      ]),
    );
    const linker = site.getByRole('listitem').filter({ hasText: 'missing.html' }).getByRole('link');
    expect(await linker.getAttribute('href')).toMatch(/^http:\/\/[^ ]+\/docs\/$/);
    await page.getByRole('textbox', { name: 'Website or folder' }).fill('ftp://docs.example.com/');
    await page.getByRole('button', { name: 'Add source' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('only http and https');

    await page.getByRole('searchbox', { name: 'Question' }).fill('what is max_locks_per_transaction');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const first = firstHit(page);
    await expect
      .poll(() => first.getByRole('link').textContent())
      .toBe('Configuration › Locks › max_locks_per_transaction (integer)');
    expect(await first.textContent()).toMatch(/score 0\.0\d{3} · match \d+\.\d{2}/);

    const folder = page.getByRole('region', { name: /docs-site\/docs$/ });
    await folder.getByRole('button', { name: 'Re-crawl now' }).click();
    await expect
      .poll(() => service.requests.filter((r) => /\/crawl\/?$/.test(r.path) && r.status === 202).length)
      .toBeGreaterThan(0);
    await folder.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: /^Remove .*docs-site\/docs\?$/ })
      .getByRole('button', { name: 'Remove source' })
      .click();
    await expect.poll(() => folder.count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    // The refused address is the one failed request (the browser logs its 400).
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await context.close();
  });

  // Three crawls, each waited for as the page shows it (about 1.5 s each on an idle machine): on a
  // 2-core machine running other builds beside it, the 30 s every other console test has was not
  // enough twice.
  it('Sources: exclusions given when adding, changed by keyboard, shown with what the last crawl skipped', async () => {
    const { page, context, errors, violations } = await openSources();
    const sources = () => service.storage.docs.listDocSources(PROJECT.id);
    /**
     * Waits until the source's crawl after `since` is stored, then until the page, never
     * reloaded, shows it by itself and says so.
     */
    const crawled = async (location: RegExp, since: number) => {
      await expect
        .poll(
          async () => ((await sources()).find((s) => location.test(s.location))?.lastCrawlAt ?? 0) > since,
        )
        .toBe(true);
      await expect
        .poll(
          async () => {
            const said = (await page.getByRole('status').allTextContents()).find((t) =>
              t.startsWith('Crawled '),
            );
            return !!said && /: \d+ pages\.$/.test(said) && location.test(said.replace(/: \d+ pages\.$/, ''));
          },
          { timeout: 15_000 },
        )
        .toBe(true);
    };

    // A folder added with the paths it keeps out (the Sources test above removed the seeded one).
    const exclude = page
      .getByRole('form', { name: 'Add a source' })
      .getByRole('textbox', { name: 'Exclude paths', exact: true });
    expect(await exclude.getAttribute('aria-describedby')).toBeTruthy();
    await page.getByRole('textbox', { name: 'Website or folder' }).fill('test/fixtures/docs-site/docs');
    await exclude.fill('/private/\n\n  *.md  ');
    const added = Date.now() - 1;
    await page.getByRole('button', { name: 'Add source' }).click();
    const folder = page.getByRole('region', { name: /docs-site\/docs$/ });
    await expect
      .poll(() =>
        folder
          .getByRole('list', { name: /excludes$/ })
          .getByRole('listitem')
          .allTextContents(),
      )
      .toEqual(['/private/', '*.md']);
    await crawled(/docs-site\/docs$/, added);
    // 8 files: private/secret.html, private/open.html and notes.md skipped.
    expect(await folder.getByRole('definition').first().textContent()).toBe('5');
    expect(await folder.textContent()).toContain('3 skipped (excluded)');
    expect(await axe(page)).toEqual([]);

    // The website's exclusions, by keyboard: Enter opens the editor with the focus in it, Escape
    // closes it unsaved and gives the focus back.
    const site = page.getByRole('region', { name: /\/docs\/$/ });
    const edit = site.getByRole('button', { name: 'Edit exclusions' });
    await edit.focus();
    await page.keyboard.press('Enter');
    const box = site.getByRole('textbox', { name: 'Exclude paths', exact: true });
    await expect
      .poll(() => box.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el))
      .toBe(true);
    expect(await axe(page)).toEqual([]);
    await page.keyboard.type('/docs/notes.md');
    await page.keyboard.press('Escape');
    await expect.poll(() => box.count()).toBe(0);
    expect(await edit.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)).toBe(true);
    expect(await site.getByRole('list', { name: /excludes$/ }).count()).toBe(0);

    // A bad pattern is refused, named; a good one saved and crawled at once.
    await page.keyboard.press('Enter');
    await box.fill('docs/notes.md');
    await box.press('Tab');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The exclude pattern "docs/notes.md" must start with / or * (a path on the site, like /blog/).');
    await box.fill('/docs/notes.md');
    const saved = Date.now() - 1;
    await site.getByRole('button', { name: 'Save exclusions' }).click();
    await expect
      .poll(() =>
        site
          .getByRole('list', { name: /excludes$/ })
          .getByRole('listitem')
          .allTextContents(),
      )
      .toEqual(['/docs/notes.md']);
    await crawled(/\/docs\/$/, saved);
    expect(await site.textContent()).toContain('1 skipped (excluded), 1 kept out by robots.txt');
    expect(await site.getByRole('definition').first().textContent()).toBe('5');
    expect(await axe(page)).toEqual([]);

    // Back as the other tests expect: nothing excluded on the site, the folder gone.
    const cleared = Date.now() - 1;
    await site.getByRole('button', { name: 'Edit exclusions' }).click();
    await site.getByRole('textbox', { name: 'Exclude paths', exact: true }).fill('');
    await site.getByRole('button', { name: 'Save exclusions' }).click();
    await crawled(/\/docs\/$/, cleared);
    expect(await site.getByRole('definition').first().textContent()).toBe('6');
    await folder.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: /^Remove .*docs-site\/docs\?$/ })
      .getByRole('button', { name: 'Remove source' })
      .click();
    await expect.poll(() => folder.count()).toBe(0);
    expect(await violations()).toEqual([]);
    // The refused pattern is the one failed request (the browser logs its 400).
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await context.close();
  }, 60_000);

  it('Sources: synonyms saved by keyboard, the last search run again with them, a bad group refused', async () => {
    const { page, context, errors, violations } = await openSources();
    await page.getByRole('searchbox', { name: 'Question' }).fill('everything is stuck forever');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No section matches “everything is stuck forever”.').waitFor();

    const synonyms = page.getByRole('region', { name: 'Synonyms' });
    const box = synonyms.getByRole('textbox', { name: 'Words that mean the same on your site' });
    expect(await box.getAttribute('aria-describedby')).toBe('synonyms-hint');
    await box.fill('stuck, waits for a lock\n\nupgrade, migration');
    await box.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved 2 synonym groups.');
    // The search shown runs again: the setting the owner's word points to comes first.
    const first = firstHit(page);
    await expect
      .poll(() => first.getByRole('link').textContent())
      .toBe('Configuration › Locks › lock_timeout (milliseconds)');
    await page.getByText('Also searched for: waits for a lock').waitFor();
    expect(await service.storage.docs.docSynonyms(PROJECT.id)).toEqual([
      ['stuck', 'waits for a lock'],
      ['upgrade', 'migration'],
    ]);
    expect(await axe(page)).toEqual([]);

    await box.fill('stuck');
    await synonyms.getByRole('button', { name: 'Save synonyms' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The synonym group "stuck" needs at least two words or phrases.');
    expect(await axe(page)).toEqual([]);

    // Back as the other tests expect: none.
    await box.fill('');
    await synonyms.getByRole('button', { name: 'Save synonyms' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved 0 synonym groups.');
    await page.getByText('No section matches “everything is stuck forever”.').waitFor();
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await context.close();
  });

  it("Sources: a website's folder of release notes offered for exclusion and kept out with one press", async () => {
    const root = await mkdtemp(join(tmpdir(), 'release-site-'));
    const page = (title: string, links: string[] = []) =>
      `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>${links.map((h) => `<a href="${h}">${h}</a>`).join(' ')}</main></body></html>`;
    const releases = ['1.0', '1.1', '2.0', '2.1'];
    await mkdir(join(root, 'releases'));
    await writeFile(
      join(root, 'index.html'),
      page('Acme', ['install.html', ...releases.map((v) => `releases/${v}.html`)]),
    );
    await writeFile(join(root, 'install.html'), page('Install'));
    for (const v of releases)
      await writeFile(join(root, 'releases', `${v}.html`), page(`Acme ${v} release notes`));
    const site = await serveFolder(root);
    const { page: tab, context, errors, violations } = await openSources();
    try {
      await tab.getByRole('textbox', { name: 'Website or folder' }).fill(`${site.url}/`);
      await tab.getByRole('button', { name: 'Add source' }).click();
      const offer = tab.getByRole('group', { name: `Suggested exclusions for ${site.url}/` });
      await offer.waitFor({ timeout: 15_000 });
      expect(await offer.getByRole('listitem').allTextContents()).toEqual([
        expect.stringMatching(/^4 release notes under \/releases\/\s*Exclude \/releases\/$/),
      ]);
      expect(await axe(tab)).toEqual([]);

      await offer.getByRole('button', { name: 'Exclude /releases/' }).click();
      await expect
        .poll(async () =>
          (await service.storage.docs.listDocSources(PROJECT.id)).filter((s) =>
            s.exclude.includes('/releases/'),
          ),
        )
        .toEqual([expect.objectContaining({ location: `${site.url}/` })]);
      const source = tab.getByRole('region', { name: `${site.url}/` });
      await source
        .getByRole('list', { name: `Paths ${site.url}/ excludes` })
        .getByText('/releases/')
        .waitFor();
      // Once the crawl without them is in, nothing is left to offer.
      await expect.poll(() => offer.count(), { timeout: 15_000 }).toBe(0);
      await expect.poll(() => source.getByRole('definition').first().textContent()).toBe('2');
      expect(await axe(tab)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);

      await source.getByRole('button', { name: 'Remove' }).click();
      await tab.getByRole('dialog').getByRole('button', { name: 'Remove source' }).click();
      await expect.poll(() => source.count()).toBe(0);
    } finally {
      await context.close();
      await site.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('Sources: a crawl under way says how far it has got, on every page that shows it, then what it found', async () => {
    const site = await heldSite({ pages: 40 });
    const tabs: Awaited<ReturnType<typeof openSources>>[] = [];
    try {
      const added = await openSources();
      tabs.push(added);
      await added.page.getByRole('textbox', { name: 'Website or folder' }).fill(site.start);
      await added.page.getByRole('button', { name: 'Add source' }).click();
      // Every page but the held one read: the page that added it shows how far the crawl has got,
      // and so do pages opened meanwhile (dark, and a phone), which started nothing.
      for (const look of LOOKS) {
        const tab = look.name === 'light' ? added : await openSources(look);
        if (tab !== added) tabs.push(tab);
        const source = tab.page.getByRole('region', { name: site.start });
        const crawl = source.getByRole('definition').filter({ hasText: /pages? read/ });
        await expect
          .poll(() => crawl.textContent(), { timeout: 15_000 })
          .toMatch(/^41 pages read, for \d+ sec$/);
        expect(await source.getByRole('term').filter({ hasText: 'Crawling' }).count()).toBe(1);
        // Its "next crawl" was the time it began, now past: no such line while it runs.
        expect(await source.getByRole('term').filter({ hasText: 'Next crawl' }).count()).toBe(0);
        // Read where it stands, not spoken each second: no live region holds it.
        expect(await tab.page.getByRole('status').filter({ hasText: 'pages read' }).count()).toBe(0);
        const found = await axe(tab.page);
        expect(found, `${look.name}: ${found.join('; ')}`).toEqual([]);
        if (SHOTS) {
          await source.scrollIntoViewIfNeeded();
          await tab.page.screenshot({ path: `${SHOTS}/sources-crawling-${look.name}.png` });
        }
      }

      // The last page read: each page says the crawl is done, by itself, with what it found.
      site.release();
      for (const { page } of tabs) {
        const source = page.getByRole('region', { name: site.start });
        await expect.poll(() => source.getByRole('definition').first().textContent()).toBe('42');
        expect(
          await source
            .getByRole('term')
            .filter({ hasText: /^Crawl/ })
            .count(),
        ).toBe(0);
        expect(await page.getByRole('status').allTextContents()).toContain(
          `Crawled ${site.start}: 42 pages.`,
        );
      }
      for (const { violations, errors } of tabs) {
        expect(await violations()).toEqual([]);
        expect(errors).toEqual([]);
      }
      const { page } = tabs[0];
      await page.getByRole('region', { name: site.start }).getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove source' }).click();
      await expect.poll(() => page.getByRole('region', { name: site.start }).count()).toBe(0);
    } finally {
      await Promise.all(tabs.map(({ context }) => context.close()));
      await site.close();
    }
  });

  it('Sources on a service without a documentation library: says how to give it one, and offers nothing it would refuse', async () => {
    const storage = memoryStores();
    const bare = await serve(
      createAgentService({
        projects: [PROJECT],
        storage,
        agent: new DemoAgent({ wordDelayMs: 0 }),
        console: await nodeConsole(),
      }),
      { port: 0, log: () => {} },
    );
    cleanup.push(() => bare.close());
    await storage.accounts.createAdmin({
      username: ADMIN.username,
      passwordHash: await scryptPasswords.hash(ADMIN.password),
      createdAt: Date.now(),
    });
    const { page, context, errors, violations } = await openSources({ url: bare.url });
    await expect
      .poll(() => page.getByText(/answers without a documentation library/).textContent())
      .toContain('start it with --docs');
    for (const control of ['Add source', 'Search', 'Save synonyms'])
      expect(await page.getByRole('button', { name: control, exact: true }).count()).toBe(0);
    expect(await page.getByText('No sources yet').count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Sources of a project with none: a search says the project has no sources yet, not only that nothing matched', async () => {
    const { page, context, errors } = await openSources();
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByRole('textbox', { name: 'Project name' }).fill('Without docs');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Sources', exact: true }).click();
    await page.getByText('No sources yet: add the address of your documentation.').waitFor();
    await page.getByRole('searchbox', { name: 'Question' }).fill('how do I install it');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page
      .getByText(
        'No section matches “how do I install it”: this project has no sources yet. Add its documentation above.',
      )
      .waitFor();
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Conversations: marks the rows whose sources changed, and shows only those when asked, kept in the address', async () => {
    const { page, context, errors } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('region', { name: 'Conversation list' });
    const stale = list.getByRole('link', { name: /How much memory does Acme need/ });
    await expect.poll(() => stale.textContent()).toContain('Sources changed');
    expect(await list.getByRole('link', { name: /Can I use it with React/ }).textContent()).not.toContain(
      'Sources changed',
    );
    await page.getByRole('checkbox', { name: 'Sources changed' }).check();
    await expect.poll(() => new URL(page.url()).searchParams.get('stale_sources')).toBe('1');
    await expect
      .poll(async () =>
        (await list.getByRole('link').allTextContents()).map((t) => t.includes('Sources changed')),
      )
      .toEqual([true]);
    // The address keeps it: a reload shows the same rows, the box still checked.
    await page.reload();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Sources changed' }).isChecked()).toBe(true);
    await expect.poll(() => list.getByRole('link').count()).toBe(1);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Sources: counts the conversations whose sources changed, and links to them', async () => {
    const { page, context, errors } = await openSources();
    await expect
      .poll(() => page.getByText(/citing a page changed or removed since/).textContent())
      .toMatch(/^\d+ conversations? ha(s an answer|ve answers) citing/);
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'Review these conversations' }).click();
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Sources changed' }).isChecked()).toBe(true);
    await expect
      .poll(() =>
        page.getByRole('region', { name: 'Conversation list' }).getByRole('link').first().textContent(),
      )
      .toContain('Sources changed');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('flags the sources of a past answer whose page changed since', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: /How much memory does Acme need/ }).click();
    const sources = page.getByRole('list').filter({ hasText: 'Installing Acme › Requirements' });
    await expect.poll(() => sources.textContent()).toContain('Page changed since this answer');
    expect(await axe(page)).toEqual([]);
    await context.close();
  });
});
