// Runs the bundled Worker (dist/worker.js) in workerd, Cloudflare's open-source Workers runtime
// from npm, with and without nodejs_compat. The Worker reaches a stand-in agent service on
// loopback with workerd's own fetch: the session is minted, the owner key set, and a redirect
// from the service is refused without the API key ever reaching where it points.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import workerdPackage from 'workerd';

const here = fileURLToPath(new URL('.', import.meta.url));
// The platform binary itself (the package's main gives its path): the workerd/bin script is a
// Node wrapper that would leave the real server running when it is killed.
const workerd = workerdPackage.default ?? workerdPackage;
const listen = (server) =>
  new Promise((done) => server.listen(0, '127.0.0.1', () => done(server.address().port)));

// The stand-in service: mints a session, or (for the owner "mallory") redirects elsewhere.
const stolen = [];
const minted = [];
const service = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  if (req.url === '/steal') {
    stolen.push(req.headers['x-api-key']);
    return void res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end('{"session_token":"stolen","expires_at":"2099-01-01T00:00:00Z"}');
  }
  const owner = body ? JSON.parse(body).external_owner_id : null;
  if (owner === 'mallory')
    return void res.writeHead(302, { Location: `http://127.0.0.1:${servicePort}/steal` }).end();
  minted.push({ key: req.headers['x-api-key'], owner, path: req.url });
  res
    .writeHead(200, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ session_token: 'tok', expires_at: '2099-01-01T00:00:00Z' }));
});
const servicePort = await listen(service);

async function freePort() {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((done) => probe.close(done));
  return port;
}

function config(flags) {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The Worker may reach this machine only: the stand-in service listens on loopback.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${flags.map((flag) => `"${flag}"`).join(', ')}],
  bindings = [
    (name = "AGENT_API_KEY", text = "key"),
    (name = "AGENT_BASE_URL", text = "http://127.0.0.1:${servicePort}"),
  ],
  globalOutbound = "loopback",
);
`;
}

async function run(flags) {
  // Beside the bundle: workerd embeds files relative to its config.
  const file = join(here, 'dist', `workerd${flags.map((flag) => `-${flag}`).join('')}.capnp`);
  writeFileSync(file, config(flags));
  const port = await freePort();
  const child = spawn(workerd, ['serve', file, '--socket-addr', `http=127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  try {
    const origin = `http://127.0.0.1:${port}`;
    // Ready once it answers; bounded, and a workerd that exits early says why.
    for (let attempt = 0; ; attempt++) {
      if (child.exitCode !== null) throw new Error(`workerd exited (${child.exitCode}):\n${output}`);
      try {
        await fetch(origin, { signal: AbortSignal.timeout(1_000) });
        break;
      } catch (error) {
        if (attempt >= 100)
          throw new Error(`workerd did not answer on ${origin}:\n${output}`, { cause: error });
        await new Promise((done) => setTimeout(done, 100));
      }
    }
    const post = (user) =>
      fetch(`${origin}/api/agent-session`, { method: 'POST', headers: { 'X-User': user } });

    const ok = await post('alice');
    const body = await ok.text();
    assert.equal(ok.status, 200, `${flags.join(' ') || 'no flags'}: ${body}\n${output}`);
    assert.equal(JSON.parse(body).session_token, 'tok');
    assert.match(ok.headers.get('agent-chat-owner-key'), /^[\w-]{43}$/);
    assert.deepEqual(minted.at(-1), {
      key: 'key',
      owner: 'alice',
      path: '/agent/v1/projects/proj/agent/sessions/',
    });

    const redirected = await post('mallory');
    assert.equal(redirected.status, 502);
    assert.equal((await redirected.json()).code, 'service_unavailable');
    assert.deepEqual(stolen, [], 'the API key followed a redirect');
  } finally {
    child.kill();
    await exited;
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

try {
  await run([]);
  await run(['nodejs_compat']);
  const version = execFileSync(workerd, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `workerd: ${version}, with and without nodejs_compat: session minted through workerd's fetch, a redirect refused with the key kept`,
  );
} finally {
  service.closeAllConnections();
  service.close();
}
