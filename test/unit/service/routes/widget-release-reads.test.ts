/**
 * What an instance reads of its own widget release as it starts: the release's sri.json, and a
 * file only when a page or the store needs it (decision 763). A restart of an instance whose
 * release the fleet keeps already reads nothing more.
 */
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentService, memoryStores, type AgentService } from '../../../../service/index.js';
import { nodeWidgetRelease } from '../../../../service/console-node.js';

const FILES: Record<string, string> = {
  'agent-chat.iife.js': 'console.log("the widget");'.repeat(100),
  'agent-chat.locale.de.js': 'export default {};',
  'chunks/solver.js': 'export const solve = 1;',
};
const SRI = Object.fromEntries(Object.keys(FILES).map((name) => [name, `sha384-${name}`]));

describe("an instance's own widget release", () => {
  let dir: string;
  /** Every file the release reads goes through here, so the test counts them. */
  const readFile = vi.fn((path: string) => fs.readFile(path));
  const services: AgentService[] = [];
  /** The release's files read from disk since the last call, by name. */
  const reads = () => {
    const names = readFile.mock.calls
      .map(([path]) => (typeof path === 'string' ? path : ''))
      .filter((path) => path.startsWith(dir))
      .map((path) => path.slice(join(dir, '0.9.0').length + 1));
    readFile.mockClear();
    return names.sort();
  };
  const get = (service: AgentService, path: string) =>
    service.handle(new Request(`https://agent.test${path}`));

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'widget-reads-'));
    await fs.mkdir(join(dir, '0.9.0', 'chunks'), { recursive: true });
    for (const [name, text] of Object.entries(FILES)) await fs.writeFile(join(dir, '0.9.0', name), text);
    await fs.writeFile(join(dir, '0.9.0', 'sri.json'), JSON.stringify(SRI));
    readFile.mockClear();
  });
  afterEach(async () => {
    await Promise.all(services.map((s) => s.close()));
    services.length = 0;
    await fs.rm(dir, { recursive: true, force: true });
  });

  const start = async (storage = memoryStores()) => {
    const service = createAgentService({
      storage,
      widget: await nodeWidgetRelease({ dir, readFile }),
      rateLimit: false,
    });
    services.push(service);
    return service;
  };

  it('is opened by its sri.json; a restart on a store that keeps it reads no other file', async () => {
    const storage = memoryStores();
    const first = await start(storage);
    expect(reads()).toEqual(['sri.json']);
    // The first instance stores the release: it reads every file, once.
    await get(first, '/widget/0.1.0/agent-chat.iife.js');
    expect(reads()).toEqual(Object.keys(FILES).sort());
    const second = await start(storage);
    await get(second, '/widget/0.1.0/agent-chat.iife.js');
    expect(reads()).toEqual(['sri.json']);
    // A page's file is read when first asked for, then served from memory.
    for (let i = 0; i < 3; i++)
      expect(await (await get(second, '/widget/0.9.0/agent-chat.iife.js')).text()).toBe(
        FILES['agent-chat.iife.js'],
      );
    expect(reads()).toEqual(['agent-chat.iife.js']);
  });

  it('serves a file gone from its folder since it started from the copy the store keeps', async () => {
    const storage = memoryStores();
    await get(await start(storage), '/widget/0.1.0/x.js');
    // An upgrade in place replaced the package's folder under the running instance.
    const running = await start(storage);
    await fs.rm(join(dir, '0.9.0'), { recursive: true });
    const response = await get(running, '/widget/0.9.0/agent-chat.locale.de.js');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(FILES['agent-chat.locale.de.js']);
    expect((await get(running, '/widget/0.9.0/agent-chat.nope.js')).status).toBe(404);
  });
});
