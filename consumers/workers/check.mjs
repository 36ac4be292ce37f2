// Runs the bundled Worker with only the globals a Workers runtime has (no process, no require).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync('dist/worker.js', 'utf8');
assert.doesNotMatch(source, /\bnode:|\brequire\(|\bprocess\./, 'the Worker bundle must not touch Node');

const globals = { Request, Response, Headers, URL, crypto, TextEncoder, TextDecoder, btoa, atob, AbortSignal, AbortController, DOMException, ReadableStream, setTimeout, clearTimeout, console };
const context = vm.createContext({ ...globals });
// The bundle is one ES module; `export default` becomes an assignment vm can run.
const script = source.replace(/export\s*\{\s*(\w+)\s+as\s+default\s*\};?/, 'globalThis.worker = $1;').replace(/export default /, 'globalThis.worker = ');
new vm.Script(script, { filename: 'worker.js' }).runInContext(context);

const env = {
  AGENT_API_KEY: 'key',
  SERVICE: { fetch: async (url, init) => new Response(JSON.stringify({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z', key: new Headers(init.headers).get('x-api-key') }), { headers: { 'Content-Type': 'application/json' } }) },
};
const response = await context.worker.fetch(new Request('https://shop.example/api/agent-session', { method: 'POST', headers: { 'X-User': 'alice' } }), env);
assert.equal(response.status, 200);
assert.equal((await response.json()).key, 'key');
assert.match(response.headers.get('agent-chat-owner-key'), /^[\w-]{43}$/);
console.log(`workers: ${(source.length / 1000).toFixed(1)} KB bundle, no Node built-ins, runs on web globals only`);
