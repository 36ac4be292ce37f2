/** The widget releases role on every engine: keeping a release once per hashes, its files' bytes, loads, the bound. */
import { expect, it } from 'vitest';
import type { WidgetReleaseFiles } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

const DAY = 86_400_000;
const bytes = (text: string) => new TextEncoder().encode(text);

function release(version: string, script = `console.log(${JSON.stringify(version)});`): WidgetReleaseFiles {
  return {
    version,
    sri: { 'agent-chat.iife.js': `sha384-${script}` },
    files: [
      { name: 'agent-chat.iife.js', body: bytes(script), gzip: bytes(`gz ${script}`) },
      { name: 'sri.json', body: bytes(`{"agent-chat.iife.js":"sha384-${script}"}`) },
    ],
  };
}

const text = (file: { body: Uint8Array } | undefined) => file && new TextDecoder().decode(file.body);

storageSuite('widget releases', ({ open }) => {
  it('keeps a release once per hashes, replaces other hashes under its version, and gives back the exact bytes', async () => {
    const { widgets } = await open();
    // Two instances of one release starting at once store it once.
    expect(
      (
        await Promise.all([
          widgets.keepWidgetRelease(release('1.0.0'), T0),
          widgets.keepWidgetRelease(release('1.0.0'), T0),
        ])
      ).sort(),
    ).toEqual(['kept', 'stored']);
    expect(await widgets.keepWidgetRelease(release('1.0.0'), T0 + 1)).toBe('kept');
    const file = await widgets.widgetFile('1.0.0', 'agent-chat.iife.js');
    expect(text(file)).toBe('console.log("1.0.0");');
    expect(new TextDecoder().decode(file!.gzip)).toBe('gz console.log("1.0.0");');
    expect((await widgets.widgetFile('1.0.0', 'sri.json'))?.gzip).toBeUndefined();
    expect(await widgets.widgetFile('1.0.0', 'chunks/solver.js')).toBeUndefined();
    expect(await widgets.widgetFile('1.0.1', 'agent-chat.iife.js')).toBeUndefined();

    expect(await widgets.keepWidgetRelease(release('1.0.0', 'console.log("rebuilt");'), T0 + 2)).toBe(
      'replaced',
    );
    expect(text(await widgets.widgetFile('1.0.0', 'agent-chat.iife.js'))).toBe('console.log("rebuilt");');
    expect(await widgets.listWidgetReleases()).toEqual([
      { version: '1.0.0', bytes: 23 + 26 + 55, storedAt: T0 + 2, loadedAt: null },
    ]);
  });

  it('tells whether it holds a release with these very hashes, without its files', async () => {
    const { widgets } = await open();
    const kept = release('1.0.0');
    expect(await widgets.holdsWidgetRelease(kept.version, kept.sri)).toBe(false);
    await widgets.keepWidgetRelease(kept, T0);
    expect(await widgets.holdsWidgetRelease('1.0.0', { ...kept.sri })).toBe(true);
    // The hashes as a set: their order in sri.json is no difference.
    const two = { 'b.js': 'sha384-b', 'a.js': 'sha384-a' };
    await widgets.keepWidgetRelease({ ...release('2.0.0'), sri: two }, T0);
    expect(await widgets.holdsWidgetRelease('2.0.0', { 'a.js': 'sha384-a', 'b.js': 'sha384-b' })).toBe(true);
    expect(await widgets.holdsWidgetRelease('1.0.0', release('1.0.0', 'console.log("rebuilt");').sri)).toBe(
      false,
    );
    expect(await widgets.holdsWidgetRelease('1.0.0', { ...kept.sri, 'chunks/solver.js': 'sha384-x' })).toBe(
      false,
    );
    expect(await widgets.holdsWidgetRelease('1.0.1', kept.sri)).toBe(false);
  });

  it('notes loads, lists the last used first, and purges the unused and those beyond the bound, never the kept one', async () => {
    const { widgets } = await open();
    for (let i = 0; i < 5; i++) await widgets.keepWidgetRelease(release(`1.${i}.0`), T0 + i);
    await widgets.noteWidgetLoaded('1.0.0', T0 + 200 * DAY);
    await widgets.noteWidgetLoaded('1.0.0', T0 + 100 * DAY);
    await widgets.noteWidgetLoaded('9.9.9', T0);
    expect((await widgets.listWidgetReleases()).map((r) => [r.version, r.loadedAt])).toEqual([
      ['1.0.0', T0 + 200 * DAY],
      ['1.4.0', null],
      ['1.3.0', null],
      ['1.2.0', null],
      ['1.1.0', null],
    ]);
    // 1.2.0 unused since before T0 + 3, 1.3.0 beyond the two last used; 1.1.0 kept whatever.
    expect(await widgets.purgeWidgetReleases(['1.1.0'], T0 + 3, 2)).toBe(2);
    expect((await widgets.listWidgetReleases()).map((r) => r.version)).toEqual(['1.0.0', '1.4.0', '1.1.0']);
    expect(await widgets.purgeWidgetReleases(['1.1.0'], T0, 1)).toBe(1);
    expect((await widgets.listWidgetReleases()).map((r) => r.version)).toEqual(['1.0.0', '1.1.0']);
    expect(await widgets.widgetFile('1.4.0', 'agent-chat.iife.js')).toBeUndefined();
  });
});
