import { describe, expect, it } from 'vitest';
import { AGENT, PROJECT, makeService } from '../../../fixtures/service.js';

type Ctx = ReturnType<typeof makeService>;

describe('§2 owner key', () => {
  async function ownerKey(ctx: Ctx, owner?: string) {
    const response = await ctx.call('POST', `${AGENT}/sessions/`, {
      apiKey: PROJECT.apiKey,
      body: owner === undefined ? undefined : { external_owner_id: owner },
    });
    return response.headers.get('Agent-Chat-Owner-Key');
  }

  it('is stable for an owner, differs between owners, reveals nothing and is "-" without owner', async () => {
    const ctx = makeService();
    const alice = await ownerKey(ctx, 'alice@example.com');
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await ownerKey(ctx, 'alice@example.com')).toBe(alice);
    expect(await ownerKey(ctx, 'bob@example.com')).not.toBe(alice);
    expect(alice).not.toContain('alice');
    expect(await ownerKey(ctx)).toBe('-');
  });
});
