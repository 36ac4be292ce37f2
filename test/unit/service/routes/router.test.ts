import { describe, expect, it } from 'vitest';
import { AGENT, BASE, PROJECT, makeService } from '../../../fixtures/service.js';

describe('HTTP surface', () => {
  it('answers a CORS preflight allowing Authorization and Content-Type, not X-API-Key or credentials', async () => {
    const { call } = makeService();
    const response = await call('OPTIONS', `${AGENT}/chat/`, {
      headers: {
        Origin: 'https://shop.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key',
    );
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('DELETE');
    expect(response.headers.get('Access-Control-Allow-Credentials')).toBeNull();
  });

  it('lets browsers read Retry-After and every error body cross-origin', async () => {
    const { call } = makeService();
    const response = await call('GET', `${AGENT}/threads/`);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Expose-Headers')).toContain('Retry-After');
  });

  it('answers 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    const { call } = makeService();
    expect((await call('GET', `${BASE}/nope/`)).status).toBe(404);
    const wrong = await call('PUT', `${AGENT}/chat/`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('POST');
  });

  it('serves the same contract under a base path', async () => {
    const { service } = makeService({ basePath: '/service/' });
    const response = await service.handle(
      new Request(`${BASE}/service/agent/v1/projects/${PROJECT.id}/agent/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey },
      }),
    );
    expect(response.status).toBe(200);
  });
});
