import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../../../service/storage/data-dir-lock.js';
import { openStorage } from '../../../../service/storage/open.js';
import { findTemplate, unpackTemplate } from '../../../../service/storage/pgdata-template.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), 'agent-chat-embedded-'));
  dirs.push(dir);
  return dir;
}

/** Every file under `dir` with its size and modification time: what "writes nothing" compares. */
async function snapshot(dir: string) {
  const files = (await readdir(dir, { recursive: true })).sort();
  return Promise.all(
    files.map(async (file) => {
      const info = await stat(join(dir, file));
      return `${file} ${info.size} ${info.mtimeMs}`;
    }),
  );
}

describe('the embedded store is single-writer', () => {
  it(
    'refuses a second opener of one data directory, which writes nothing, and frees it on close',
    { timeout: 60_000 },
    async () => {
      const dir = await dataDir();
      const first = await openStorage({ dataDir: dir });
      await first.directory.putSession({
        tokenHash: 'h1',
        projectId: 'p',
        owner: null,
        keyId: null,
        createdAt: 0,
        expiresAt: 1,
      });
      const before = await snapshot(dir);
      const error = await openStorage({ dataDir: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as Error).message).toContain(`in use by process ${process.pid}`);
      expect((error as Error).message).toContain('DATABASE_URL');
      expect(await snapshot(dir)).toEqual(before);
      // The first is unaffected; once it closes, the directory can be opened again, data and all.
      expect((await first.directory.getSession('h1'))?.projectId).toBe('p');
      await first.close();
      const again = await openStorage({ dataDir: dir });
      expect((await again.directory.getSession('h1'))?.projectId).toBe('p');
      await again.close();
    },
  );

  it('takes over the lock of a process that is gone (a crash), but not of one that runs', async () => {
    const dir = await dataDir();
    // A pid that surely ran and ended: a child that has exited.
    const gone = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: Number(gone), host: hostname(), started: null }),
    );
    const release = lockDataDir(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
    expect(await readdir(dir)).toEqual([]);
    // pid 1 runs (init); a lock it holds on this machine stands.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: hostname(), started: null }));
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
  });

  it(
    'starts the first time from the built template (no initdb in memory) into a working database',
    { timeout: 60_000 },
    async () => {
      const template = findTemplate();
      expect(template, 'npm run build --workspace agent-chat-service makes it').toBeDefined();
      const dir = join(await dataDir(), 'data');
      await mkdir(dir);
      await unpackTemplate(template!, dir);
      expect(await readFile(join(dir, 'PG_VERSION'), 'utf8')).toMatch(/^\d+\n$/);
      const store = await openStorage({ dataDir: dir });
      await store.directory.putSession({
        tokenHash: 'h',
        projectId: 'p',
        owner: null,
        keyId: null,
        createdAt: 0,
        expiresAt: 1,
      });
      await store.close();
      const files = await readdir(dir);
      expect(files).toEqual(
        expect.arrayContaining(['PG_VERSION', 'base', 'global', 'pg_wal', 'postgresql.conf']),
      );
      expect(files).not.toContain(LOCK_FILE);
    },
  );
});
