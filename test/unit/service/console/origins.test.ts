import { describe, expect, it } from 'vitest';
import { withConsole } from '../../../fixtures/console.js';
import { AGENT, PROJECT } from '../../../fixtures/service.js';

describe('allowed origins', () => {
  it('a listed origin gets CORS for itself; an unlisted one a 403 it can read (CORS for itself, origin_not_allowed) on chat and history', async () => {
    const { admin, call, session } = await withConsole();
    const saved = await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_demo`, {
      allowed_origins: ['https://docs.example.com/', 'http://localhost:3000'],
    });
    expect(saved.body.allowed_origins).toEqual(['https://docs.example.com', 'http://localhost:3000']);
    const token = await session('alice');
    const chat = (origin: string | null, integration = 'int_demo') =>
      call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: integration, message: 'How do I theme it?' },
        headers: origin ? { Origin: origin } : {},
      });

    const listed = await chat('https://docs.example.com');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    expect(listed.headers.get('Vary')).toContain('Origin');
    await listed.text();

    const refused = await chat('https://evil.example');
    expect(refused.status).toBe(403);
    // Readable by the page that sent it (so the widget can say why), and by no other origin.
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect(refused.headers.get('Vary')).toContain('Origin');
    expect(await refused.json()).toEqual({
      code: 'origin_not_allowed',
      detail:
        'Pages on https://evil.example may not use integration int_demo: add https://evil.example to its "Allowed origins" on the Integrations page of the service console.',
    });
    // int_other has no list: it keeps the open behaviour, and makes history open too.
    expect((await chat('https://evil.example', 'int_other')).status).toBe(200);
    // Server-side calls carry no Origin: nothing to refuse.
    expect((await chat(null)).status).toBe(200);

    await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_other`, {
      allowed_origins: ['https://app.example.com'],
    });
    const history = await call('GET', `${AGENT}/threads/`, {
      token,
      headers: { Origin: 'https://evil.example' },
    });
    expect(history.status).toBe(403);
    expect(history.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect((await history.json()).code).toBe('origin_not_allowed');
    expect(
      (await call('GET', `${AGENT}/threads/`, { token, headers: { Origin: 'https://app.example.com' } }))
        .status,
    ).toBe(200);
  });

  it('the preflight passes for every origin (it cannot see which integration the call names); the call it clears is checked', async () => {
    const { admin, call, session } = await withConsole();
    // Every integration restricted, none listing evil.example: no integration could accept it.
    for (const id of ['int_demo', 'int_other'])
      await admin.call('PATCH', `projects/${PROJECT.id}/integrations/${id}`, {
        allowed_origins: ['https://docs.example.com'],
      });
    const preflight = (origin: string, path = '/chat/') =>
      call('OPTIONS', `${AGENT}${path}`, {
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
    for (const origin of ['https://evil.example', 'https://docs.example.com']) {
      const answer = await preflight(origin);
      expect(answer.status, origin).toBe(204);
      expect(answer.headers.get('Access-Control-Allow-Origin')).toBe(origin);
      expect(answer.headers.get('Access-Control-Allow-Headers')).toBe(
        'Authorization, Content-Type, Idempotency-Key',
      );
      expect(answer.headers.get('Vary')).toContain('Origin');
    }
    expect((await preflight('https://evil.example', '/threads/')).status).toBe(204);
    // What the preflight cleared is refused, before any work: no thread is made.
    const token = await session('alice');
    const refused = await call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'Hello?' },
      headers: { Origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect((await refused.json()).code).toBe('origin_not_allowed');
    const threads = await call('GET', `${AGENT}/threads/`, { token });
    expect((await threads.json()).threads).toEqual([]);
  });

  it('names every line that is not an origin, and changes nothing', async () => {
    const { admin } = await withConsole();
    const bad = await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_demo`, {
      allowed_origins: [
        'https://ok.example',
        'https://x.example/path',
        'ftp://files.example',
        '*.example.com',
        // A wildcard with a scheme parses as a URL, but no browser sends it: it would match nothing.
        'https://*.example.com',
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe(
      'Not an origin (scheme://host[:port], no path): https://x.example/path, ftp://files.example, *.example.com, https://*.example.com.',
    );
    expect((await admin.call('GET', 'projects')).body.projects[0].integrations[0].allowed_origins).toEqual(
      [],
    );
  });

  it('answers a change to an integration the project does not have with a 404, and changes nothing', async () => {
    const { admin } = await withConsole();
    const change = { allowed_origins: ['https://ok.example'] };
    expect(await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_nope`, change)).toMatchObject({
      status: 404,
      body: { detail: 'No such integration.' },
    });
    const integrations = (await admin.call('GET', 'projects')).body.projects[0].integrations;
    expect(integrations.map((i: { id: string }) => i.id)).not.toContain('int_nope');
    expect(integrations.flatMap((i: { allowed_origins: string[] }) => i.allowed_origins)).toEqual([]);
  });
});
