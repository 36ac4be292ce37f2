import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    readonly holder: Holder,
  ) {
    super(
      `the data directory ${dataDir} is in use by process ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ''}. ` +
        'The embedded database takes one process: stop that one first, give this one another --data directory, ' +
        'or run several instances on PostgreSQL (DATABASE_URL). ' +
        `If no such process runs, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

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
 * fails here, having written nothing. A lock whose process is gone (a crash) is taken over.
 * Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, host: hostname(), started: startTime(process.pid) };
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
    let held: string;
    try {
      held = readFileSync(path, 'utf8');
    } catch {
      continue; // released meanwhile: try again
    }
    let holder = parse(held);
    if (!holder) {
      // Being written this instant by another starting process, or torn by a crash mid-write.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      try {
        held = readFileSync(path, 'utf8');
      } catch {
        continue;
      }
      holder = parse(held);
    }
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
