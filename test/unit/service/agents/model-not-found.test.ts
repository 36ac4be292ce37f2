import { describe, expect, it } from 'vitest';
import { type Script, answers, setup, upstream } from '../../../fixtures/model-upstream.js';

/**
 * A 404 from the model server has two causes with two fixes (decision 502): an address where
 * nothing serves chat completions (most often OPENAI_BASE_URL without its /v1), and a model the
 * server does not have (OPENAI_MODEL). The answer tells them apart, as each server says it.
 */

/** What a server's router answers for a path it does not serve, as three kinds of server do. */
const ROUTERS: [string, string, string][] = [
  ['Ollama (Go)', 'text/plain; charset=utf-8', '404 page not found'],
  ['vLLM (FastAPI)', 'application/json', '{"detail":"Not Found"}'],
  [
    'OpenAI',
    'application/json',
    '{"error":{"message":"Invalid URL (POST /chat/completions)","type":"invalid_request_error","param":null,"code":null}}',
  ],
];

/** What a server answers on its own chat completions path for a model it does not have. */
const UNKNOWN_MODEL: [string, string][] = [
  [
    'OpenAI',
    '{"error":{"message":"The model `test-model` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}',
  ],
  [
    'Ollama',
    '{"error":{"message":"model \\"test-model\\" not found, try pulling it first","type":"api_error","param":null,"code":null}}',
  ],
  [
    'vLLM (older)',
    '{"object":"error","message":"The model `test-model` does not exist.","type":"NotFoundError","param":null,"code":404}',
  ],
];

/**
 * An OpenAI-compatible server: chat completions at /v1/chat/completions only, where it knows no
 * model (`unknownModel`) or answers; any other path gets its router's 404.
 */
function server(router: [string, string, string], unknownModel?: string): Script {
  return (res, request) => {
    if (request.path !== '/v1/chat/completions')
      return res.writeHead(404, { 'Content-Type': router[1] }).end(router[2]);
    if (unknownModel) return res.writeHead(404, { 'Content-Type': 'application/json' }).end(unknownModel);
    return answers(['Fine.'])(res, request);
  };
}

async function failedWith(script: Script, withV1: boolean) {
  const model = await upstream(script);
  const base = withV1 ? model.baseUrl : model.baseUrl.replace(/\/v1$/, '');
  const { ask, logs } = await setup(base);
  const { end, stored } = await ask();
  expect(end.type).toBe('error');
  expect(stored.status).toBe('error');
  // Neither is retried: the next try would meet the same 404.
  expect(model.requests).toHaveLength(1);
  const origin = new URL(model.baseUrl).origin;
  return { failed: logs.find((e) => e.msg === 'agent_failed')!, logs, origin };
}

describe('model agent: a 404 says which setting to fix', () => {
  it.each(ROUTERS)(
    'a base URL without /v1 (%s answers its router 404): the base URL to fix, with the address to try',
    async (...router) => {
      const { failed, origin } = await failedWith(server(router), false);
      expect(failed).toMatchObject({ code: 'model_url_not_found' });
      expect(failed.hint).toContain(
        `nothing serves chat completions at ${origin}/chat/completions: it answered 404`,
      );
      expect(failed.hint).toContain(`naming no model; OPENAI_BASE_URL usually ends in /v1: try ${origin}/v1`);
      expect(failed.hint).not.toContain('OPENAI_MODEL');
    },
  );

  it.each(UNKNOWN_MODEL)(
    'the right address but a model the server lacks (%s): the model to fix, where the list is, and nothing of its message',
    async (_, body) => {
      const { failed, logs, origin } = await failedWith(server(ROUTERS[0], body), true);
      expect(failed).toMatchObject({ code: 'model_not_found' });
      expect(failed.hint).toContain('the model server has no model "test-model": it answered 404');
      expect(failed.hint).toContain(`set OPENAI_MODEL to one of the models GET ${origin}/v1/models lists`);
      expect(failed.hint).not.toContain('OPENAI_BASE_URL');
      // The server's own words stay out of the log (a message may quote the conversation).
      expect(JSON.stringify(logs)).not.toMatch(/does not exist|try pulling/);
    },
  );

  it('a base URL that ends in /v1 yet serves nothing there: no second /v1 offered, the address to check', async () => {
    const { failed, origin } = await failedWith((res) => res.writeHead(404).end('Not Found'), true);
    expect(failed).toMatchObject({ code: 'model_url_not_found' });
    expect(failed.hint).toContain(`nothing serves chat completions at ${origin}/v1/chat/completions`);
    expect(failed.hint).toContain('check that OPENAI_BASE_URL is the address of an OpenAI-compatible API');
    expect(failed.hint).not.toContain('/v1/v1');
  });

  it('the same server answers once both are right', async () => {
    const model = await upstream(server(ROUTERS[0]));
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).stored).toMatchObject({ status: 'complete', content: 'Fine.' });
  });
});
