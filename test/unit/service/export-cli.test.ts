/** `agent-chat-service export-conversations`: the console's download, for a script (decision 633). */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { exportConversationsCommand, type ExportOptions } from '../../../service/export-cli.js';
import { memoryStores } from '../../../service/index.js';
import type { Stores } from '../../../service/storage/types.js';
import { DAY, T0, message, thread, threadWith } from '../../fixtures/records.js';

async function seeded(threads = 0) {
  const store = memoryStores();
  await store.directory.createProject({ id: 'p', name: 'P', ownerSecret: 'secret', createdAt: T0 });
  await store.conversations.createThread(thread('t1', 'alice', T0));
  await store.conversations.appendMessage('t1', message('q1', T0, { content: 'How do I theme it?' }));
  await store.conversations.appendMessage(
    't1',
    message('a1', T0, { role: 'assistant', status: 'complete', content: 'Set --agent-chat-color-accent.' }),
  );
  // A visitor's words that a spreadsheet would run as a formula.
  await store.conversations.createThread(threadWith('t2', { owner: 'bob', updatedAt: T0 + DAY }));
  await store.conversations.appendMessage('t2', message('q2', T0 + DAY, { content: '=1+1, then' }));
  for (let i = 0; i < threads; i++) {
    await store.conversations.createThread(thread(`n${i}`, 'carol', T0 + 2 * DAY + i));
    await store.conversations.appendMessage(`n${i}`, message(`qn${i}`, T0 + 2 * DAY + i));
  }
  return store;
}

/** A stdout that takes a few bytes at a time and asks the writer to wait, as a slow pipe does. */
function slowSink() {
  const chunks: string[] = [];
  let waits = 0;
  const sink = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      waits++;
      setImmediate(done);
    },
  });
  return { sink, text: () => chunks.join(''), waits: () => waits };
}

const run = async (args: string[], options: ExportOptions, store: Stores) => {
  const { sink, text } = slowSink();
  const err: string[] = [];
  const code = await exportConversationsCommand(
    args,
    options,
    { dataDir: 'unused' },
    { stdout: sink, error: (line) => err.push(line) },
    async () => store,
  );
  return { code, out: text(), err: err.join('\n') };
};

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('agent-chat-service export-conversations', () => {
  it('writes the CSV the console downloads to stdout, newest first, formulas as text, and audits it by cli', async () => {
    const store = await seeded();
    const result = await run([], { project: 'p' }, store);
    expect([result.code, result.err]).toEqual([0, '']);
    const lines = result.out.split('\r\n');
    expect(lines[0]).toBe(
      '\uFEFFthread_id,owner_key,integration_id,asked_at_utc,question,files,answer,answer_status,failure,uncertain,sources,sources_changed,feedback',
    );
    expect(lines.slice(1, 3).map((line) => line.split(',')[0])).toEqual(['t2', 't1']);
    expect(lines[1]).toContain(`"'=1+1, then"`);
    expect(lines[2]).toContain('How do I theme it?,,Set --agent-chat-color-accent.,complete');
    // Owners stay opaque, as on the console.
    expect(result.out).not.toMatch(/alice|bob/);
    const [entry] = await store.accounts.listAudit({ limit: 1 });
    expect([entry.actor, entry.action, entry.projectId, entry.detail]).toEqual([
      'cli',
      'conversation.export',
      'p',
      { format: 'csv' },
    ]);
  });

  it('writes JSON Lines of what the filters match into --out, whole, leaving no partial file', async () => {
    const store = await seeded();
    folder = await mkdtemp(join(tmpdir(), 'agent-chat-export-'));
    const out = join(folder, 'export.jsonl');
    const day = new Date(T0 + DAY).toISOString().slice(0, 10);
    const result = await run([], { project: 'p', format: 'jsonl', start: day, out }, store);
    expect([result.code, result.out, result.err]).toEqual([0, '', '']);
    const rows = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; integration_id: string; messages: unknown[] });
    expect(rows.map((r) => [r.id, r.integration_id, r.messages.length])).toEqual([['t2', 'web', 1]]);
    expect(await readdir(folder)).toEqual(['export.jsonl']);
    const integration = await run([], { project: 'p', integration: ['i'], format: 'jsonl' }, store);
    expect(
      integration.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(['t1']);
  });

  it('reads a store of 250 conversations page by page into a slow pipe, every one once, in order', async () => {
    const store = await seeded(250);
    const { sink, text, waits } = slowSink();
    const code = await exportConversationsCommand(
      [],
      { project: 'p', format: 'jsonl' },
      { dataDir: 'unused' },
      { stdout: sink, error: () => {} },
      async () => store,
    );
    expect(code).toBe(0);
    const ids = text()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toHaveLength(252);
    expect(ids.slice(0, 2)).toEqual(['n249', 'n248']);
    expect(ids.slice(-2)).toEqual(['t2', 't1']);
    expect(new Set(ids).size).toBe(252);
    expect(waits()).toBeGreaterThan(250);
  });

  it('refuses a wrong call (2) and an unknown project (1) in words, writing nothing', async () => {
    const store = await seeded();
    const cases: [string[], ExportOptions, number, RegExp][] = [
      [[], {}, 2, /usage: agent-chat-service export-conversations --project ID/],
      [['extra'], { project: 'p' }, 2, /usage/],
      [[], { project: 'p', format: 'xlsx' }, 2, /--format is one of csv, jsonl; not xlsx\./],
      [[], { project: 'p', only: ['downvoted,liked'] }, 2, /--only takes downvoted, .*; not liked\./],
      [[], { project: 'p', start: 'yesterday' }, 2, /start/],
      [[], { project: 'p', integration: ['a', 'b'] }, 2, /one --integration at most/],
      [[], { project: 'nope' }, 1, /no project nope\./],
    ];
    for (const [args, options, code, message] of cases) {
      const result = await run(args, options, store);
      expect([result.code, result.out], JSON.stringify(options)).toEqual([code, '']);
      expect(result.err, JSON.stringify(options)).toMatch(message);
    }
    expect(await store.accounts.listAudit({ limit: 5 })).toEqual([]);
  });

  it('says so when --out cannot be written, and leaves no file behind', async () => {
    const store = await seeded();
    folder = await mkdtemp(join(tmpdir(), 'agent-chat-export-'));
    const out = join(folder, 'missing-folder', 'export.csv');
    const result = await run([], { project: 'p', out }, store);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/ENOENT.*; nothing was written to .*export\.csv\./);
    expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
  });
});
