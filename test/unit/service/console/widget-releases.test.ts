import { describe, expect, it } from 'vitest';
import { isoMicros } from '../../../../service/kernel/clock.js';
import { withConsole } from '../../../fixtures/console.js';
import { BASE } from '../../../fixtures/service.js';
import { widgetRelease } from '../../../fixtures/widget-release.js';

const old = widgetRelease('1.0.0', 'console.log("one");');

describe('console: the widget releases pages load (decision 742)', () => {
  it('lists the release served and each kept one with when a page last loaded it', async () => {
    const { admin, call, clock, service } = await withConsole({
      widget: widgetRelease('1.1.0', 'console.log("two");'),
    });
    // What the release before kept when it ran on this store.
    const files = await Promise.all(
      [...Object.keys(old.sri), 'sri.json'].map(async (name) => ({ name, ...(await old.file(name))! })),
    );
    await service.storage.widgets.keepWidgetRelease(
      { version: '1.0.0', sri: old.sri, files },
      clock.now() - 1,
    );
    const keptAt = clock.now() - 1;
    clock.advance(60_000);
    expect((await call('GET', `${BASE}/widget/1.0.0/agent-chat.iife.js`)).status).toBe(200);
    const { status, body } = await admin.call('GET', 'widget-releases');
    expect(status).toBe(200);
    expect(body.serving).toBe('1.1.0');
    expect(body.releases).toContainEqual({
      version: '1.0.0',
      stored_at: isoMicros(keptAt),
      loaded_at: isoMicros(clock.now()),
      bytes: expect.any(Number),
    });
    expect(body.releases.map((r: { version: string }) => r.version).sort()).toEqual(['1.0.0', '1.1.0']);
  });
});
