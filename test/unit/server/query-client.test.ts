import { describe, expect, it } from 'vitest';
import { createQueryClient, EndpointGoneError, successorFromLink } from '../../../server/index.js';
import { ApiError } from '../../../src/api/errors.js';
import { BASE, PROJECT, makeService } from '../../fixtures/service.js';
import { urlOf } from '../../helpers/requests.js';

/** The query client with the project's key against `ctx`'s service, and the URLs it asked. */
function clientOf(ctx: ReturnType<typeof makeService>) {
  const urls: string[] = [];
  const client = createQueryClient({
    apiKey: PROJECT.apiKey,
    projectId: PROJECT.id,
    baseUrl: BASE,
    fetch: async (input, init) => {
      urls.push(urlOf(input));
      return ctx.service.handle(new Request(input, init));
    },
  });
  return { client, urls };
}

describe('createQueryClient', () => {
  it('reads activity from the replacement endpoint with the API key', async () => {
    const ctx = makeService();
    await ctx.chat(await ctx.session('alice'), 'hello');
    const { client, urls } = clientOf(ctx);
    const report = await client.activity({
      start: '2026-11-21',
      end: '2026-11-21',
      integrationId: 'int_demo',
    });
    expect(report.totals).toEqual({
      sessions: 1,
      threads: 1,
      messages: 2,
      upvotes: 0,
      downvotes: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      unique_owners: 1,
    });
    expect(urls[0]).toBe(
      `${BASE}/query/v1/projects/${PROJECT.id}/activity/?start=2026-11-21&end=2026-11-21&integration_id=int_demo`,
    );
    expect(urls[0]).not.toContain('analytics');
  });

  it('turns a 410 into an error naming the successor from the Link header', async () => {
    const ctx = makeService();
    // A service that has since retired this path too: every query answers like the removed one.
    const client = createQueryClient({
      apiKey: PROJECT.apiKey,
      projectId: PROJECT.id,
      baseUrl: BASE,
      fetch: async (input, init) =>
        ctx.service.handle(new Request(urlOf(input).replace('/activity/', '/analytics/activity/'), init)),
    });
    const error = (await client.activity().catch((e: unknown) => e)) as EndpointGoneError;
    expect(error).toBeInstanceOf(EndpointGoneError);
    expect(error.successor).toBe(`${BASE}/query/v1/projects/${PROJECT.id}/activity/`);
    expect(error.message).toContain(`use ${BASE}/query/v1/projects/${PROJECT.id}/activity/ instead`);
  });

  it('maps other statuses to typed errors', async () => {
    const ctx = makeService();
    const client = createQueryClient({
      apiKey: 'wrong',
      projectId: PROJECT.id,
      baseUrl: BASE,
      fetch: async (input, init) => ctx.service.handle(new Request(input, init)),
    });
    const error = await client.activity().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it("describes one of the project's integrations, and names the one it does not have", async () => {
    const ctx = makeService({ projects: [{ ...PROJECT, allowedOrigins: ['https://docs.example.com'] }] });
    const { client, urls } = clientOf(ctx);
    expect(await client.integration('int_demo')).toEqual({
      id: 'int_demo',
      name: 'int_demo',
      public: false,
      allowed_origins: ['https://docs.example.com'],
    });
    expect(urls[0]).toBe(`${BASE}/query/v1/projects/${PROJECT.id}/integrations/int_demo/`);
    const error = await client.integration('int nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'integration_not_found' });
    expect(urls[1]).toBe(`${BASE}/query/v1/projects/${PROJECT.id}/integrations/int%20nope/`);
  });

  it.each([
    ['<https://a.test/v2/>; rel="successor-version"', 'https://a.test/v2/'],
    ['<https://a.test/docs>; rel="help", <https://a.test/v2/>; rel=successor-version', 'https://a.test/v2/'],
    ['<https://a.test/docs>; rel="help"', undefined],
    [null, undefined],
  ])('successorFromLink(%s)', (link, expected) => {
    expect(successorFromLink(link)).toBe(expected);
  });
});
