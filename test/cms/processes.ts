/**
 * The real programs the CMS suites run against: the built agent service, PHP's and Python's own
 * servers. Each is a child process on a free port of 127.0.0.1, stopped by its own id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

export interface Program {
  child: ChildProcess;
  /** Everything it printed, stdout and stderr. */
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `command` and resolves once its output matches `ready` (rejects if it exits first). */
export function startProgram(
  command: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; ready: RegExp; cwd?: string; timeoutMs?: number },
): Promise<Program & { match: RegExpExecArray }> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: `php -S` with workers forks them, and they outlive a parent
    // stopped alone.
    detached: true,
  });
  let output = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not start within ${options.timeoutMs ?? 60_000} ms: ${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = options.ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => output, stop, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${output}`));
    });
  });
}

/** A port nobody listens on right now (php -S needs one named in advance). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A temporary folder, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface RunningService extends Program {
  url: string;
  apiKey: string;
  projectId: string;
  integrationId: string;
}

/** The built agent-chat-service with the offline demo agent, on its own embedded database. */
export async function startService(
  dataDir: string,
  options: { allowedOrigins?: string[] } = {},
): Promise<RunningService> {
  const cli = join(ROOT, 'service/dist/cli.js');
  for (const file of [cli, join(ROOT, 'dist/agent-chat.iife.js')])
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first.`);
  const project = { apiKey: 'key-cms-test-0123456789', projectId: 'proj_cms', integrationId: 'int_cms' };
  const program = await startProgram(
    process.execPath,
    [
      cli,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data',
      dataDir,
      '--project',
      project.projectId,
      '--integration',
      project.integrationId,
      '--api-key',
      project.apiKey,
      ...(options.allowedOrigins ?? []).flatMap((origin) => ['--allowed-origin', origin]),
    ],
    {
      env: { DATABASE_URL: '', AGENT_CHAT_WORD_DELAY_MS: '0' },
      ready: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    },
  );
  return { ...program, url: program.match[1], ...project };
}
