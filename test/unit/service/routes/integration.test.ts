import { afterEach, describe, expect, it } from 'vitest';
import type { Stores } from '../../../../service/index.js';
import { AGENT, BASE, PROJECT, errorBody, makeService } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';

/** The docs site's integrations are public on one origin; another owner's project has one of its own. */
const DOCS = { ...PROJECT, allowedOrigins: ['https://docs.example.com'], public: true };
const ELSEWHERE = { id: 'proj_else', apiKey: 'key_else', integrationIds: ['int_else'] };
const integration = (id: string, projectId = PROJECT.id) =>
  `${BASE}/query/v1/projects/${projectId}/integrations/${id}/`;

describe.each(engines())(
  'one integration described to its owner (decision 464) on $name',
  { timeout: 30_000 },
  (engine) => {
    let storage: Stores | undefined;
    afterEach(async () => {
      await storage?.close();
      storage = undefined;
    });
    const service = async (options = {}) =>
      makeService({ projects: [DOCS, ELSEWHERE], storage: (storage = await engine.open()), ...options });

    it("answers the integration's public fields, and nothing else, to its project's key", async () => {
      const { call } = await service();
      const response = await call('GET', integration('int_demo'), { apiKey: PROJECT.apiKey });
      expect(response.status).toBe(200);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(await response.json()).toEqual({
        id: 'int_demo',
        name: 'int_demo',
        public: true,
        allowed_origins: ['https://docs.example.com'],
      });
      const other = await call('GET', integration('int_else', ELSEWHERE.id), { apiKey: ELSEWHERE.apiKey });
      expect(await other.json()).toEqual({
        id: 'int_else',
        name: 'int_else',
        public: false,
        allowed_origins: [],
      });
    });

    it('answers 401 invalid_api_key for a missing or wrong key, and for an unknown project alike', async () => {
      const { call } = await service();
      const missing = await call('GET', integration('int_demo'));
      const wrong = await call('GET', integration('int_demo'), { apiKey: 'key_wrong' });
      const anotherProjects = await call('GET', integration('int_demo'), { apiKey: ELSEWHERE.apiKey });
      const unknownProject = await call('GET', integration('int_demo', 'proj_nope'), {
        apiKey: PROJECT.apiKey,
      });
      for (const response of [missing, wrong, anotherProjects, unknownProject]) {
        expect(response.status).toBe(401);
        expect(await errorBody(response)).toEqual({
          detail: 'Missing or invalid X-API-Key for this project: check the project id and the API key.',
          code: 'invalid_api_key',
        });
      }
    });

    it("answers 404 integration_not_found, naming the id, for an unknown integration and for another project's", async () => {
      const { call } = await service();
      for (const id of ['int_nope', 'int_else']) {
        const response = await call('GET', integration(id), { apiKey: PROJECT.apiKey });
        expect(response.status).toBe(404);
        expect(await errorBody(response)).toEqual({
          detail: `Project proj_demo has no integration "${id}": copy its id from the Integrations page of the service console.`,
          code: 'integration_not_found',
        });
      }
    });

    it('is not for browsers: a session token is no key, and the preflight never clears X-API-Key', async () => {
      const { call, session } = await service();
      const token = await session('alice');
      const withToken = await call('GET', integration('int_demo'), {
        token,
        headers: { Origin: 'https://docs.example.com' },
      });
      expect(withToken.status).toBe(401);
      expect((await errorBody(withToken)).code).toBe('invalid_api_key');
      const preflight = await call('OPTIONS', integration('int_demo'), {
        headers: {
          Origin: 'https://docs.example.com',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'x-api-key',
        },
      });
      expect(preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase() ?? '').not.toContain(
        'x-api-key',
      );
      // The agent API's base has no such route: the integration is described on the query API only.
      const agentPath = await call('GET', `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/`, {
        apiKey: PROJECT.apiKey,
      });
      expect(agentPath.status).toBe(404);
    });

    it("is limited like the session mint, in a window of its own that leaves the visitors' mints alone", async () => {
      const { call, clock } = await service({ sessionMintLimit: { requests: 2, windowMs: 60_000 } });
      const describe = () => call('GET', integration('int_demo'), { apiKey: PROJECT.apiKey });
      expect((await describe()).status).toBe(200);
      expect((await describe()).status).toBe(200);
      const limited = await describe();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('Retry-After')).toBe('60');
      expect((await errorBody(limited)).code).toBe('rate_limited');
      expect((await call('POST', `${AGENT}/sessions/`, { apiKey: PROJECT.apiKey })).status).toBe(200);
      clock.advance(60_000);
      expect((await describe()).status).toBe(200);
    });
  },
);
