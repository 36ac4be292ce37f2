import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../../service/kernel/tokens.js';
import { MIGRATIONS } from '../../../../service/storage/migrations.js';
import { pgliteClient } from '../../../../service/storage/pglite.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import { AGENT, PROJECT, allRecords, makeService } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';

describe.each(engines())('session tokens at rest on $name', { timeout: 30_000 }, (engine) => {
  it('keeps only SHA-256 hashes of session tokens, and a hash read back authenticates nothing', async () => {
    const storage = await engine.open();
    const ctx = makeService({ storage });
    try {
      const token = await ctx.session();
      const records = await allRecords(
        await ctx.call('POST', `${AGENT}/chat/`, {
          token,
          body: { integration_id: 'int_demo', message: 'How do I theme the widget?' },
        }),
      );
      const answerId = records[0].content.question_answer_id as string;
      expect(
        (
          await ctx.call('POST', `${AGENT}/feedback/`, {
            token,
            body: { question_answer_id: answerId, reaction: 'upvote' },
          })
        ).status,
      ).toBe(204);
      const hash = await hashToken(token);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await storage.directory.getSession(token)).toBeUndefined();
      expect((await storage.directory.getSession(hash))?.tokenHash).toBe(hash);
      await ctx.service.refreshActivity();
      const rows = await storage.activity.activity(PROJECT.id, 0, 1e9);
      expect(new Set(rows.map((r) => r.sessionToken))).toEqual(new Set([hash]));
      // What the store holds, presented as a token, is refused.
      const stolen = await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token: hash });
      expect(stolen.status).toBe(401);
      expect((await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token })).status).toBe(200);
    } finally {
      await storage.close();
    }
  });
});

describe('session tokens stored before they were hashed', { timeout: 30_000 }, () => {
  it('are hashed in place by the migration, in every table that held one, and keep working', async () => {
    const db = await pgliteClient();
    try {
      await db.query('CREATE SCHEMA old_tokens');
      await db.query('SET search_path TO old_tokens');
      await db.query('CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)');
      for (const statement of MIGRATIONS[0].split(/;\s*\n/)) if (statement.trim()) await db.query(statement);
      await db.query('INSERT INTO schema_migrations VALUES (1, 0)');
      const token = 'ses_00112233445566778899aabbccddeeff';
      await db.query("INSERT INTO sessions VALUES ($1, 'proj_demo', NULL, 0, 9e15)", [token]);
      await db.query(
        "INSERT INTO events (kind, project_id, at, session_token) VALUES ('session', 'proj_demo', 0, $1)",
        [token],
      );
      await db.query("INSERT INTO threads VALUES ('th_1', 'proj_demo', 'int_demo', NULL, 't', 0, 0)");
      await db.query(
        "INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain) VALUES ('msg_1', 'th_1', 'assistant', '', '[]', 0, 0, 'complete', '[]', '[]', false)",
      );
      await db.query(
        "INSERT INTO feedback VALUES ('msg_1', $2, 'proj_demo', $1, NULL, 'int_demo', 'upvote', NULL, 0)",
        [token, `session:${token}`],
      );
      await db.query('REFRESH MATERIALIZED VIEW activity_rollup');

      const storage = await openSqlStores({ ...db, close: async () => {} });
      const hash = await hashToken(token);
      const everywhere = await db.query(
        `SELECT (SELECT count(*) FROM sessions WHERE token_hash = $1) + (SELECT count(*) FROM events WHERE session_token = $1)
           + (SELECT count(*) FROM feedback WHERE session_token = $1 OR voter = $1) + (SELECT count(*) FROM activity_rollup WHERE session_token = $1) AS n`,
        [token],
      );
      expect(Number(everywhere.rows[0].n)).toBe(0);
      expect((await storage.directory.getSession(hash))?.projectId).toBe('proj_demo');
      expect(await storage.conversations.reactions('th_1', `session:${hash}`)).toEqual(
        new Map([['msg_1', 'upvote']]),
      );
      expect(
        new Set((await storage.activity.activity('proj_demo', 0, 1)).map((r) => r.sessionToken)),
      ).toEqual(new Set([hash]));
    } finally {
      await db.close();
    }
  });
});
