import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../../../service/storage/data-dir-lock.js';
import { openStorage } from '../../../../service/storage/open.js';
import { findTemplate, unpackTemplate } from '../../../../service/storage/pgdata-template.js';
import type { EndedOrphan } from '../../../../service/storage/types.js';
import { T0, answerOf, message, thread } from '../../../fixtures/records.js';

/** The lock's module as JavaScript another Node process can import (it imports only node: modules). */
async function lockModuleFile(dir: string): Promise<string> {
  const { transformWithOxc } = await import('vite');
  const path = fileURLToPath(new URL('../../../../service/storage/data-dir-lock.ts', import.meta.url));
  const { code: outputText } = await transformWithOxc(await readFile(path, 'utf8'), path);
  const file = join(dir, 'data-dir-lock.mjs');
  await writeFile(file, outputText);
  return file;
}

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

  it('is held by the operating system: another process keeps it whatever its file says, and loses it to kill -9', async () => {
    const dir = await dataDir();
    const module = await lockModuleFile(await dataDir());
    // Another process takes the lock and holds it (as a second container on a shared volume would).
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import(${JSON.stringify(module)}).then(async (m) => { await m.lockDataDir(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
        holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
      });
      expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(holder.pid);
      await expect(lockDataDir(dir)).rejects.toThrow(`in use by process ${holder.pid}`);
      // Its pid means nothing in another PID namespace (one that ended here, say): the lock still stands.
      const gone = spawnSync(process.execPath, [
        '-e',
        'process.stdout.write(String(process.pid))',
      ]).stdout.toString();
      await writeFile(
        join(dir, LOCK_FILE),
        JSON.stringify({ pid: Number(gone), host: hostname(), started: null }),
      );
      await expect(lockDataDir(dir)).rejects.toThrow(DataDirLockedError);
      // kill -9: the operating system lets go of it with the process.
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
      await expect
        .poll(() =>
          lockDataDir(dir).then(
            (release) => release(),
            () => 'held',
          ),
        )
        .not.toBe('held');
      // A file that names a running process (init) stands for nothing without the lock.
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: hostname(), started: null }));
      const release = await lockDataDir(dir);
      expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      await release();
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it(
    "after kill -9, the next start ends what was generating as an error and frees its owner's answer slots",
    { timeout: 60_000 },
    async () => {
      const dir = await dataDir();
      const before = await openStorage({ dataDir: dir });
      await before.conversations.createThread(thread('t1'));
      await before.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: false,
        question: message('q1'),
        answer: answerOf('a1'),
        instanceId: 'inst_killed',
        events: [],
      });
      expect(await before.ledger.takeAnswerSlot('owner:alice', 1, 'a1', 'inst_killed', T0)).toBe('taken');
      // The process dies here: nothing ends the answer or gives its slot back.
      await before.close();
      const ended: EndedOrphan[] = [];
      const after = await openStorage({ dataDir: dir, ended: (answers) => ended.push(...answers) });
      try {
        expect((await after.conversations.getMessage('a1'))?.message.status).toBe('error');
        // Said to the program, which writes the failed answer's log line (decision 513).
        expect(ended).toEqual([{ id: 'a1', threadId: 't1', projectId: 'p', status: 'error' }]);
        expect(await after.ledger.takeAnswerSlot('owner:alice', 1, 'a2', 'inst_new', T0 + 1)).toBe('taken');
      } finally {
        await after.close();
      }
    },
  );

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
      // Closed, it holds the directory no more (the lock file stays; the lock is the OS's).
      await (
        await lockDataDir(dir)
      )();
    },
  );
});
