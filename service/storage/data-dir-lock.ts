import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The embedded store's lock, inside its data directory (PostgreSQL keeps its own postmaster.pid there too). */
export const LOCK_FILE = 'agent-chat-service.lock';

interface Holder {
  pid: number;
  host: string;
  /** The process's start time (Linux clock ticks since boot), so a reused pid is not taken for the holder. */
  started: string | null;
}

/** Another live process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    /** Who wrote the lock, as far as its file says (undefined: it does not say). */
    readonly holder: Holder | undefined,
  ) {
    super(
      `${inUse(dataDir, holder)}. ` +
        'The embedded database takes one process: stop that one first, give this one another --data directory, ' +
        'or run several instances on PostgreSQL (DATABASE_URL). ' +
        `If no such process runs, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirLockedError';
  }

  /**
   * The message for a command on the store (admin, erase-owner, …): it must act on this
   * directory, so another --data or PostgreSQL would only act on another store (decision 805).
   */
  get forCommand(): string {
    return (
      `${inUse(this.dataDir, this.holder)}, the service running on it. The embedded database takes one process: ` +
      `stop the service first, then run this again (if no such process runs, delete ${join(this.dataDir, LOCK_FILE)}).`
    );
  }
}

const inUse = (dataDir: string, holder: Holder | undefined) =>
  `the data directory ${dataDir} is in use by ${holder ? `process ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ''}` : 'another process'}`;

function startTime(pid: number): string | null {
  try {
    // Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces, so count from its ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(holder: Holder): boolean {
  // Another machine's process (a shared volume) cannot be checked: it counts as alive.
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Alive, but is it the same process? A pid reused after a crash has another start time.
  const started = startTime(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

/**
 * Takes the data directory for this process, before anything in it is opened: a second process
 * fails here, having written nothing. The lock is the operating system's: an exclusive `flock`
 * on the lock file, held open by a `flock` helper whose standard input is a pipe from this
 * process, so it goes when this process goes however it ends (kill -9 too), and holds across
 * PID namespaces (two containers on one volume), where a pid means nothing. The file also says
 * who holds it, for the message. Where no `flock` program exists, a pid file stands in (see
 * pidFileLock). Resolves with the release function, which resolves once the lock is free.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, host: hostname(), started: startTime(process.pid) };
  const held = await flockHolding(path);
  if (held === 'taken') throw new DataDirLockedError(dataDir, readHolder(path));
  if (held === 'unavailable') {
    const release = pidFileLock(dataDir, path, mine);
    return async () => release();
  }
  writeFileSync(path, JSON.stringify(mine));
  chmodSync(path, 0o600);
  return held;
}

/**
 * An exclusive, non-blocking `flock` on `path`, held by util-linux's (or busybox's) `flock`
 * running `cat` on a pipe from this process: when the pipe closes (release, or this process
 * ending) `cat` ends and the lock with it. The lock file stays: deleting it would let a process
 * that opened it before lock a file no one else sees.
 */
function flockHolding(path: string): Promise<(() => Promise<void>) | 'taken' | 'unavailable'> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['-n', '-x', path, '-c', 'echo locked; exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let exited = false;
    const gone = new Promise<void>((done) =>
      child.once('exit', () => {
        exited = true;
        done();
      }),
    );
    child.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve('unavailable') : reject(error),
    );
    child.stdout!.once('data', () => {
      child.stdout!.destroy();
      // The helper neither keeps this process alive nor outlives it.
      child.unref();
      (child.stdin as unknown as { unref(): void }).unref();
      resolve(async () => {
        if (exited) return;
        // Waited for, the helper keeps the process alive again: an unref'd child's exit alone
        // would let it end here, before whatever awaits the release (an exit code) has run.
        child.ref();
        child.stdin!.end();
        await gone;
      });
    });
    // 1: another process holds it (util-linux and busybox alike); anything else: no usable flock.
    child.once('exit', (code) => resolve(code === 1 ? 'taken' : 'unavailable'));
  });
}

function readHolder(path: string): Holder | undefined {
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Without `flock`: the lock file created exclusively, with this process's pid, host and start
 * time; a lock whose process is gone (a crash) is taken over. A pid means nothing in another
 * PID namespace, so this is the fallback only.
 */
function pidFileLock(dataDir: string, path: string, mine: Holder): () => void {
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // O_EXCL: of two processes creating it at once, exactly one succeeds.
      writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (readFileSync(path, 'utf8') === text) rmSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = readStable(path);
    if (held === undefined) continue; // released meanwhile: try again
    const holder = parse(held);
    if (holder && alive(holder)) throw new DataDirLockedError(dataDir, holder);
    // Stale: remove it, unless another process replaced it since it was read.
    try {
      if (readFileSync(path, 'utf8') === held) rmSync(path);
    } catch {
      // gone already
    }
  }
  throw new Error(`could not take ${path}: other processes keep taking it.`);
}

/** The lock file's text, read again after 100 ms when it does not parse (being written, or torn by a crash). */
function readStable(path: string): string | undefined {
  try {
    const held = readFileSync(path, 'utf8');
    if (parse(held)) return held;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function parse(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) && holder.pid > 0 && typeof holder.host === 'string'
      ? holder
      : undefined;
  } catch {
    return undefined;
  }
}
