import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nodeWidgetRelease } from '../../../../service/console-node.js';
import type { WidgetRelease } from '../../../../service/index.js';
import { BASE, makeService } from '../../../fixtures/service.js';

const FILES: Record<string, string> = {
  'agent-chat.iife.js': 'console.log("the widget");',
  'agent-chat.locale.de.js': 'export default {};',
  'chunks/solver.js': 'export const solve = 1;',
};

/** A release in memory, as the Node face reads one from disk. */
const release: WidgetRelease = {
  version: '1.2.3',
  sri: Object.fromEntries(Object.keys(FILES).map((name) => [name, `sha384-${name}`])),
  async file(name) {
    const text = name === 'sri.json' ? JSON.stringify(this.sri) : FILES[name];
    return text === undefined ? undefined : { body: new TextEncoder().encode(text) };
  },
};

const get = (service: ReturnType<typeof makeService>['service'], path: string, init: RequestInit = {}) =>
  service.handle(new Request(`${BASE}${path}`, init));

describe('the widget files (§12)', () => {
  it('serves every file of the release with immutable caching, CORS, CORP and its content type', async () => {
    const { service } = makeService({ widget: release });
    for (const [name, text] of Object.entries(FILES)) {
      const response = await get(service, `/widget/1.2.3/${name}`);
      expect(response.status, name).toBe(200);
      expect(await response.text()).toBe(text);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'cache-control': 'public, max-age=31536000, immutable',
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
        'content-type': 'text/javascript; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
    }
    const sri = await get(service, '/widget/1.2.3/sri.json');
    expect(sri.headers.get('Content-Type')).toBe('application/json');
    expect(await sri.json()).toEqual(release.sri);
  });

  it('redirects latest to the versioned path (302, not cached for good), also under a proxy’s own path', async () => {
    const { service } = makeService({ widget: release, basePath: '/svc' });
    const response = await service.handle(new Request(`${BASE}/svc/widget/latest/agent-chat.iife.js`));
    expect(response.status).toBe(302);
    const location = response.headers.get('Location')!;
    expect(new URL(location, `${BASE}/svc/widget/latest/agent-chat.iife.js`).href).toBe(
      `${BASE}/svc/widget/1.2.3/agent-chat.iife.js`,
    );
    // A proxy serving the service at https://example.test/chat/ passes the same answer on: the
    // browser must stay under /chat/, where the proxy sends it to the service.
    expect(new URL(location, 'https://example.test/chat/svc/widget/latest/agent-chat.iife.js').href).toBe(
      'https://example.test/chat/svc/widget/1.2.3/agent-chat.iife.js',
    );
    expect(response.headers.get('Cache-Control')).toBe('no-cache');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  it.each([
    ['another version', '/widget/1.2.2/agent-chat.iife.js'],
    ['latest of an unknown file', '/widget/latest/nope.js'],
    ['a file outside the release', '/widget/1.2.3/agent-chat.cjs'],
    ['a path out of the folder', '/widget/1.2.3/..%2F..%2Fpackage.json'],
    ['an encoded dot segment', '/widget/1.2.3/%2e%2e/%2e%2e/package.json'],
    ['a folder', '/widget/1.2.3/chunks/'],
    ['no file', '/widget/1.2.3/'],
    ['a name every object inherits', '/widget/1.2.3/constructor'],
    ['a prototype', '/widget/1.2.3/__proto__'],
    ['latest of an inherited name', '/widget/latest/toString'],
    ['a backslash out of the folder', '/widget/1.2.3/..%5C..%5Cpackage.json'],
  ])('answers 404 for %s', async (_label, path) => {
    const { service } = makeService({ widget: release });
    expect((await get(service, path)).status).toBe(404);
  });

  it('answers 404 everywhere under /widget/ when the service was built without the widget, and 405 to a POST', async () => {
    const without = makeService();
    expect((await get(without.service, '/widget/latest/agent-chat.iife.js')).status).toBe(404);
    const { service } = makeService({ widget: release });
    const post = await get(service, '/widget/1.2.3/agent-chat.iife.js', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('the Node face reads the release the build copied, and gives gzip to a browser that takes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'widget-release-'));
    try {
      await mkdir(join(dir, '0.9.0'));
      const script = 'console.log("the widget");'.repeat(100);
      await writeFile(join(dir, '0.9.0', 'agent-chat.iife.js'), script);
      await writeFile(join(dir, '0.9.0', 'sri.json'), JSON.stringify({ 'agent-chat.iife.js': 'sha384-x' }));
      const widget = await nodeWidgetRelease({ dir });
      expect(widget).toMatchObject({ version: '0.9.0', sri: { 'agent-chat.iife.js': 'sha384-x' } });
      const { service } = makeService({ widget });
      const zipped = await get(service, '/widget/0.9.0/agent-chat.iife.js', {
        headers: { 'Accept-Encoding': 'gzip, deflate, br' },
      });
      expect(zipped.headers.get('Content-Encoding')).toBe('gzip');
      expect(zipped.headers.get('Vary')).toBe('Accept-Encoding');
      const bytes = new Uint8Array(await zipped.arrayBuffer());
      expect(bytes.length).toBeLessThan(script.length / 10);
      expect(gunzipSync(bytes).toString()).toBe(script);
      const plain = await get(service, '/widget/0.9.0/agent-chat.iife.js');
      expect(plain.headers.get('Content-Encoding')).toBeNull();
      expect(await plain.text()).toBe(script);
      // No folder, or a folder with two versions: no release (never a guess).
      await mkdir(join(dir, '1.0.0'));
      expect(await nodeWidgetRelease({ dir })).toBeNull();
      expect(await nodeWidgetRelease({ dir: join(dir, 'absent') })).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
