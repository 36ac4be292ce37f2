import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../../contract/owner-key.js';
import { withConsole } from '../../../fixtures/console.js';
import { AGENT, BASE, PROJECT, scriptedAgent } from '../../../fixtures/service.js';
import { csvCell } from '../../../../service/routes/console/conversation-export.js';

/** A CSV as a spreadsheet reads it: quoted cells may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else {
      cell += c;
    }
  }
  return rows;
}

describe('console conversations export', () => {
  it('writes one CSV row per question with its answer, sources and feedback, filtered as the list is, and audited', async () => {
    const { admin, session, chat, call, service, clock } = await withConsole();
    const alice = await session('alice');
    const bob = await session('bob');
    const first = await chat(alice, 'How do I theme the widget?');
    clock.advance(1_000);
    // What a visitor types can look like a formula, a quote, a comma, a new line, or another script.
    const tricky = '=HYPERLINK("https://evil.example","click"), then\nさらに';
    const second = await chat(bob, tricky);
    const answer = (await (await call('GET', `${AGENT}/threads/${second.threadId}/`, { token: bob })).json())
      .messages[1].id as string;
    await call('POST', `${AGENT}/feedback/`, {
      token: bob,
      body: {
        question_answer_id: answer,
        reaction: 'downvote',
        comment: { incorrect: true, issue: '-1, wrong' },
      },
    });

    const csv = await admin.call('GET', `projects/${PROJECT.id}/conversations?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('Content-Disposition')).toMatch(
      new RegExp(`^attachment; filename="conversations-${PROJECT.id}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
    );
    expect(csv.headers.get('Cache-Control')).toBe('no-store');
    const text = csv.body as string;
    // The byte-order mark goes out (Excel reads UTF-8 by it); text() takes it off, as Excel does.
    const raw = await service.handle(
      new Request(`${BASE}/console/api/projects/${PROJECT.id}/conversations?format=csv`, {
        headers: { Cookie: admin.cookie, Origin: BASE, 'Sec-Fetch-Site': 'same-origin' },
      }),
      { clientAddress: '10.0.0.1' },
    );
    expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.startsWith('thread_id,owner_key,')).toBe(true);
    const [header, ...rows] = parseCsv(text);
    const at = (name: string) => header.indexOf(name);
    // Newest first, as the list shows them.
    expect(rows.map((r) => r[at('thread_id')])).toEqual([second.threadId, first.threadId]);
    const secret = (await service.storage.directory.getProject(PROJECT.id))!.ownerSecret;
    // An owner key is base64url: one in 64 starts with `-`, and is guarded as any such cell is.
    const key = await ownerKey('bob', secret);
    expect(rows[0][at('owner_key')]).toBe(key.startsWith('-') ? `'${key}` : key);
    expect(text).not.toMatch(/\b(alice|bob)\b/);
    // The formula is text: a leading apostrophe, everything else as typed.
    expect(rows[0][at('question')]).toBe(`'${tricky}`);
    expect(rows[0][at('answer_status')]).toBe('complete');
    // A date and time a spreadsheet reads as one, in UTC as the column says.
    expect(rows[0][at('asked_at_utc')]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(rows[0][at('answer')].length).toBeGreaterThan(0);
    expect(rows[0][at('sources')].split('\n').every((url) => /^https?:\/\//.test(url))).toBe(true);
    expect(rows[0][at('feedback')]).toBe('downvote (incorrect): -1, wrong');
    expect(rows[1][at('question')]).toBe('How do I theme the widget?');
    expect(rows[1][at('feedback')]).toBe('');

    // The list's filters apply: only the downvoted thread.
    const filtered = parseCsv(
      (await admin.call('GET', `projects/${PROJECT.id}/conversations?format=csv&downvoted=1`)).body as string,
    );
    expect(filtered.slice(1).map((r) => r[0])).toEqual([second.threadId]);

    const log = (await admin.call('GET', 'audit')).body.entries;
    expect(log[0]).toMatchObject({
      action: 'conversation.export',
      project_id: PROJECT.id,
      detail: { format: 'csv', downvoted: '1' },
    });
    expect(log[1]).toMatchObject({ action: 'conversation.export', detail: { format: 'csv' } });
  });

  it('names an anonymous visitor as the page does, and says why an answer failed', async () => {
    const slow = scriptedAgent();
    const { admin, session, chat } = await withConsole({ agent: slow.agent, maxAnswerMs: 50 });
    slow.say('Thinking');
    // A public page's visitor: no owner, which the API writes as "-".
    await chat(await session(), 'Why does this fail?');
    const [header, row] = parseCsv(
      (await admin.call('GET', `projects/${PROJECT.id}/conversations?format=csv`)).body as string,
    );
    const cell = (name: string) => row[header.indexOf(name)];
    // Not "'-", the guarded dash a spreadsheet shows for every anonymous row.
    expect(cell('owner_key')).toBe('anonymous');
    expect(cell('answer_status')).toBe('error');
    // Why, as the conversation's page says it: the operator reading the sheet has only this.
    expect(cell('failure')).toMatch(/^The answer ran past the service's limit/);
    expect(header.indexOf('failure')).toBe(header.indexOf('answer_status') + 1);
  });

  it('writes JSON Lines of whole threads as the page reads them, across pages of the store, and refuses an unknown format', async () => {
    const { admin, session, chat, service, clock } = await withConsole();
    const alice = await session('alice');
    const { threadId } = await chat(alice, 'How do I theme the widget?');
    // More threads than the export reads at a time (100), straight into the store.
    for (let i = 0; i < 120; i++) {
      clock.advance(10);
      const at = clock.now();
      const id = `th_${(i + 1).toString(16).padStart(32, '0')}`;
      await service.storage.conversations.createThread({
        id,
        projectId: PROJECT.id,
        integrationId: PROJECT.integrationIds[0],
        owner: 'carol',
        title: `Question ${i}`,
        createdAt: at,
        updatedAt: at,
      });
    }
    const jsonl = await admin.call('GET', `projects/${PROJECT.id}/conversations?format=jsonl`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = (jsonl.body as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(121);
    expect(new Set(lines.map((t) => t.id)).size).toBe(121);
    expect(lines[0].title).toBe('Question 119');
    const page = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).body;
    expect(lines.at(-1)).toEqual(page);

    const refused = await admin.call('GET', `projects/${PROJECT.id}/conversations?format=xlsx`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('format is one of csv, jsonl.');
    expect((await admin.call('GET', `projects/other/conversations?format=csv`)).status).toBe(404);
  });

  it('a cell that a spreadsheet would run starts with an apostrophe; commas, quotes and new lines are quoted', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('+1 555')).toBe("'+1 555");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('-a, "b"')).toBe(`"'-a, ""b"""`);
  });

  it('words after a semicolon that a spreadsheet would run start with an apostrophe too', () => {
    // Excel in a German or French locale opens a .csv by splitting its lines on ";", a quote in
    // mid-cell being text to it: what follows a ";" is a cell of its own, and "=…" there runs.
    expect(csvCell('see docs;=HYPERLINK("https://evil.example","x")')).toBe(
      `"see docs;'=HYPERLINK(""https://evil.example"",""x"")"`,
    );
    expect(csvCell("a;=cmd|' /C calc'!A0;b")).toBe(`"a;'=cmd|' /C calc'!A0;b"`);
    expect(csvCell('=1;-2; 3')).toBe(`"'=1;'-2; 3"`);
  });
});
