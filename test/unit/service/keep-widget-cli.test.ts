import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentService, memoryStores } from '../../../service/index.js';
import { keepWidgetCommand } from '../../../service/keep-widget-cli.js';
import { widgetRelease } from '../../fixtures/widget-release.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** An earlier release's widget/ folder, as its build laid it out. */
async function releaseFolder(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'keep-widget-'));
  dirs.push(dir);
  await mkdir(join(dir, '0.9.0', 'chunks'), { recursive: true });
  const sri: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, '0.9.0', name), text);
    sri[name] = `sha384-${createHash('sha384').update(text).digest('base64')}`;
  }
  await writeFile(join(dir, '0.9.0', 'sri.json'), JSON.stringify(sri));
  return { dir, sri };
}

function run(args: string[], storage = memoryStores()) {
  const lines = { out: [] as string[], err: [] as string[] };
  const output = { print: (l: string) => lines.out.push(l), error: (l: string) => lines.err.push(l) };
  const code = keepWidgetCommand(args, { dataDir: 'unused' }, output, async () => storage);
  return { code, lines, storage };
}

describe('agent-chat-service keep-widget (decision 743)', () => {
  it('keeps an earlier release, which the upgraded service then serves byte for byte; a second run finds it kept', async () => {
    const { dir, sri } = await releaseFolder({
      'agent-chat.iife.js': 'console.log("0.9.0");',
      'chunks/solver.js': 'export const solve = 1;',
    });
    const { code, lines, storage } = run([dir]);
    expect(await code).toBe(0);
    expect(lines.out).toEqual([
      'Kept widget release 0.9.0 (3 files): pages pinned to it load it from /widget/0.9.0/.',
    ]);
    const service = createAgentService({ storage, widget: widgetRelease('1.0.0', 'console.log("1.0.0");') });
    const response = await service.handle(new Request('https://agent.test/widget/0.9.0/agent-chat.iife.js'));
    expect(response.status).toBe(200);
    expect(
      `sha384-${createHash('sha384')
        .update(new Uint8Array(await response.arrayBuffer()))
        .digest('base64')}`,
    ).toBe(sri['agent-chat.iife.js']);
    const again = run([dir], storage);
    expect(await again.code).toBe(0);
    expect(again.lines.out[0]).toMatch(/^Already kept widget release 0\.9\.0/);
  });

  it('refuses files that do not match their hashes, a missing file, a folder without a release, and a wrong call', async () => {
    const { dir } = await releaseFolder({ 'agent-chat.iife.js': 'console.log("0.9.0");' });
    await writeFile(join(dir, '0.9.0', 'agent-chat.iife.js'), 'console.log("changed");');
    const tampered = run([dir]);
    expect(await tampered.code).toBe(1);
    expect(tampered.lines.err).toEqual([
      'agent-chat-service keep-widget: agent-chat.iife.js does not match its hash in sri.json: these are not the files pinned pages check.',
    ]);
    expect(await tampered.storage.widgets.listWidgetReleases()).toEqual([]);
    // A file its sri.json names and the folder lacks: nothing kept either.
    await rm(join(dir, '0.9.0', 'agent-chat.iife.js'));
    const missing = run([dir]);
    expect(await missing.code).toBe(1);
    expect(missing.lines.err).toEqual([
      'agent-chat-service keep-widget: agent-chat.iife.js is missing: sri.json names it, and pinned pages load it.',
    ]);
    expect(await missing.storage.widgets.listWidgetReleases()).toEqual([]);
    const empty = run([join(dir, 'absent')]);
    expect(await empty.code).toBe(1);
    expect(empty.lines.err[0]).toMatch(/holds no widget release/);
    expect(await run([]).code).toBe(2);
  });

  it('refuses a release whose version or file names no address can name, reading nothing outside its folder', async () => {
    // sri.json names a file beside the widget folder, with that file's own hash: it was read and kept.
    const { dir } = await releaseFolder({ 'agent-chat.iife.js': 'console.log("0.9.0");' });
    const outside = 'operator notes, not a widget file';
    const elsewhere = await mkdtemp(join(tmpdir(), 'keep-widget-outside-'));
    dirs.push(elsewhere);
    await writeFile(join(elsewhere, 'notes.txt'), outside);
    const name = relative(join(dir, '0.9.0'), join(elsewhere, 'notes.txt'));
    const sri = { [name]: `sha384-${createHash('sha384').update(outside).digest('base64')}` };
    await writeFile(join(dir, '0.9.0', 'sri.json'), JSON.stringify(sri));
    const escaping = run([dir]);
    expect(await escaping.code).toBe(1);
    expect(escaping.lines.err[0]).toMatch(/holds no widget release: .*letters, digits/);
    expect(await escaping.storage.widgets.listWidgetReleases()).toEqual([]);
    // A version folder no URL reaches (a space, a `%`): kept, it served no page.
    for (const version of ['0.9.0 beta', '0.9.0%2F..', '0.9.0?x']) {
      const odd = await releaseFolder({ 'agent-chat.iife.js': 'console.log("0.9.0");' });
      await rename(join(odd.dir, '0.9.0'), join(odd.dir, version));
      const refused = run([odd.dir]);
      expect([version, await refused.code]).toEqual([version, 1]);
      expect(await refused.storage.widgets.listWidgetReleases()).toEqual([]);
    }
  });
});
