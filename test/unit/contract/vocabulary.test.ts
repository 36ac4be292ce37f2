import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSessionHandler } from '../../../server/index.js';
import { createAgentService } from '../../../service/index.js';
import { ownerKey } from '../../../contract/owner-key.js';
import { agentBase, agentPaths, RECORD_SEPARATOR, encodeRecord } from '../../../contract/index.js';

describe('contract/: the wire vocabulary both sides share', () => {
  it('computes the owner key of protocol §2 (version 3): base64url HMAC-SHA-256 of "agent-chat owner\\n" + id, no padding', async () => {
    const expected = createHmac('sha256', 'secret')
      .update('agent-chat owner\nalice@example.com')
      .digest('base64url');
    expect(await ownerKey('alice@example.com', 'secret')).toBe(expected);
    expect(expected).toHaveLength(43);
    expect(await ownerKey(null, 'secret')).toBe('-');
    expect(await ownerKey('', 'secret')).toBe('-');
  });

  it('gives the service and the session helper the same owner key for the same owner', async () => {
    const service = createAgentService({
      projects: [{ id: 'p', apiKey: 'k', integrationIds: ['i'] }],
      rateLimit: false,
    });
    const direct = await service.handle(
      new Request(`http://svc${agentBase('p')}${agentPaths.sessions}`, {
        method: 'POST',
        headers: { 'X-API-Key': 'k', 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: 'alice' }),
      }),
    );
    const helper = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'http://127.0.0.1',
      getOwnerId: () => 'alice',
      fetch: (input, init) => service.handle(new Request(input, init)),
    });
    const viaHelper = await helper(new Request('http://site/api/session', { method: 'POST' }));
    expect(direct.headers.get('Agent-Chat-Owner-Key')).toBe(viaHelper.headers.get('Agent-Chat-Owner-Key'));
    expect(direct.headers.get('Agent-Chat-Owner-Key')).toBe(await ownerKey('alice', 'k'));
    await service.close();
  });

  it('escapes the record separator inside a record, so it only ever ends one', () => {
    const record = encodeRecord('partial_answer', { text: `a${RECORD_SEPARATOR}b` });
    expect(record.indexOf(RECORD_SEPARATOR)).toBe(record.length - 1);
    expect(JSON.parse(record.slice(0, -1)).chunk.content.text).toBe(`a${RECORD_SEPARATOR}b`);
  });
});
