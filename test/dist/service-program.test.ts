import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '../../service/dist/cli.js');
const FLAGS = ['--port', '0', '--host', '127.0.0.1', '--project', 'proj_prog', '--integration', 'int_prog', '--api-key', 'key-prog-test'];

interface Program {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts the built program and resolves with the URL it prints. */
function start(dataDir: string): Promise<Program> {
  const child = spawn(process.execPath, [CLI, ...FLAGS, '--data', dataDir], { env: { ...process.env, DATABASE_URL: '', AGENT_CHAT_WORD_DELAY_MS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function stop(program: Program): Promise<number | null> {
  return new Promise((resolve) => {
    program.child.once('exit', (code) => resolve(code));
    program.child.kill('SIGTERM');
  });
}

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup) await fn();
});

describe('agent-chat-service (the program)', () => {
  it('serves with its flags, stops on SIGTERM, and restarts on the same data with everything there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    let program = await start(dataDir);
    cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
    const agent = () => `${program.url}/agent/v1/projects/proj_prog/agent`;
    const mint = async () => (await (await fetch(`${agent()}/sessions/`, {
      method: 'POST', headers: { 'X-API-Key': 'key-prog-test', 'Content-Type': 'application/json' }, body: '{"external_owner_id":"carol"}',
    })).json()).session_token as string;

    expect((await fetch(`${program.url}/healthz`)).status).toBe(200);
    const token = await mint();
    const chat = await fetch(`${agent()}/chat/`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ integration_id: 'int_prog', message: 'How do I theme the widget?' }) });
    const body = await chat.text();
    expect(chat.status).toBe(200);
    const threadId = /"thread_id":"(th_[0-9a-f]{32})"/.exec(body)![1];
    expect((await fetch(`${agent()}/threads/${threadId}/`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}` }, body: '{"title":"Theming notes"}' })).status).toBe(200);
    expect(await stop(program)).toBe(0);
    expect(program.output()).not.toContain('key-prog-test');
    expect(program.output()).not.toContain(token);

    program = await start(dataDir);
    const later = await mint();
    const list = await (await fetch(`${agent()}/threads/`, { headers: { Authorization: `Bearer ${later}` } })).json();
    expect(list.threads).toEqual([expect.objectContaining({ id: threadId, title: 'Theming notes' })]);
    const detail = await (await fetch(`${agent()}/threads/${threadId}/`, { headers: { Authorization: `Bearer ${later}` } })).json();
    expect(detail.messages.map((m: { role: string; status: string }) => `${m.role}:${m.status}`)).toEqual(['user:complete', 'assistant:complete']);
    expect(detail.messages[1].content).toContain('--agent-chat-color-accent');
    expect(await stop(program)).toBe(0);
  }, 120_000);
});
