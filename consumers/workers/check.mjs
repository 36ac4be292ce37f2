// Runs the bundled Worker with only the globals a Workers runtime has (no process, no require).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync('dist/worker.js', 'utf8');
assert.doesNotMatch(source, /\bnode:|\brequire\(|\bprocess\./, 'the Worker bundle must not touch Node');

// `navigator.userAgent` is what Workers report; the helper trusts CF-Connecting-IP there.
const globals = {
  Request,
  Response,
  Headers,
  URL,
  crypto,
  TextEncoder,
  TextDecoder,
  btoa,
  atob,
  AbortSignal,
  AbortController,
  DOMException,
  ReadableStream,
  setTimeout,
  clearTimeout,
  console,
  navigator: { userAgent: 'Cloudflare-Workers' },
};
const context = vm.createContext({ ...globals });
// The bundle is one ES module; `export default` becomes an assignment vm can run.
const script = source
  .replace(/export\s*\{\s*(\w+)\s+as\s+default\s*\};?/, 'globalThis.worker = $1;')
  .replace(/export default /, 'globalThis.worker = ');
new vm.Script(script, { filename: 'worker.js' }).runInContext(context);

const env = {
  AGENT_API_KEY: 'key',
  SERVICE: {
    fetch: async (url, init) =>
      new Response(
        JSON.stringify({
          session_token: 'tok',
          expires_at: '2099-01-01T00:00:00Z',
          key: new Headers(init.headers).get('x-api-key'),
        }),
        {
          headers: { 'Content-Type': 'application/json' },
        },
      ),
  },
};
const post = (address) =>
  context.worker.fetch(
    new Request('https://shop.example/api/agent-session', {
      method: 'POST',
      headers: { 'X-User': 'alice', 'CF-Connecting-IP': address },
    }),
    env,
  );
const response = await post('203.0.113.9');
assert.equal(response.status, 200);
assert.equal((await response.json()).key, 'key');
assert.match(response.headers.get('agent-chat-owner-key'), /^[\w-]{43}$/);
// One visitor in a loop is limited per CF-Connecting-IP (20 a minute); another is not.
const statuses = [];
for (let i = 0; i < 20; i++) statuses.push((await post('203.0.113.9')).status);
assert.equal(statuses.at(-1), 429);
assert.equal(statuses.filter((s) => s === 200).length, 19);
assert.equal((await post('198.51.100.7')).status, 200);
console.log(
  `workers: ${(source.length / 1000).toFixed(1)} KB bundle, no Node built-ins, runs on web globals only`,
);
