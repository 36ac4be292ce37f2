// A docs crawl as it goes on a real network: HTTPS, and a round trip that costs time. The site
// (Debian's python3-doc manual with --manual python, else a generated one of --pages pages) is
// served over HTTPS with a certificate made for the run, behind a TCP proxy on 127.0.0.1 that
// holds every chunk --rtt/2 ms in each direction. A child process (which trusts the certificate
// through NODE_EXTRA_CA_CERTS) adds the site to a `DocsLibrary` as a console admin would and
// crawls it through the service's own transport (checked addresses, `site-network.ts`), then
// crawls it again with nothing changed: wall time, CPU, pages, and the connections the site
// accepted for each. `npm run build --workspace agent-chat-service` first.
//
// With --lastmod the generated site has a sitemap that gives each page's <lastmod> (an hour
// before the run), which a re-crawl believes (decision 752); --later DAYS re-crawls as if that
// many days after the crawl (the crawl's clock moved on), as a crawl a day does.
//
//   node bench/crawl-network.mjs [--rtt 50] [--pages 1200 [--lastmod] | --manual python] [--later 1]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serveFolder } from '../scripts/static-site.mjs';

const HOST = 'docs.bench.test';
const { values } = parseArgs({
  options: {
    rtt: { type: 'string', default: '50' },
    pages: { type: 'string', default: '1200' },
    manual: { type: 'string' },
    lastmod: { type: 'boolean', default: false },
    later: { type: 'string', default: '0' },
    child: { type: 'string' },
    // Another build of the service (a commit's `service/dist`), to measure before a change.
    service: { type: 'string', default: new URL('../service/dist', import.meta.url).pathname },
  },
});

if (values.child) await child(values.child);
else await parent();

/** The crawl and the re-crawl, in the process that trusts the certificate. */
async function child(start) {
  const service = await import(join(values.service, 'index.js'));
  let shift = 0;
  const docs = new service.DocsLibrary({
    store: service.memoryStores().docs,
    clock: { now: () => Date.now() + shift },
    // The bench's name resolves to the proxy; every address is allowed, as --allow-private-docs does.
    network: { allowPrivate: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
  });
  const timed = async (work) => {
    const [cpu, at, load] = [process.cpuUsage(), performance.now(), loadavg()[0]];
    await work();
    const used = process.cpuUsage(cpu);
    return {
      ms: performance.now() - at,
      cpuMs: (used.user + used.system) / 1000,
      load: [load, loadavg()[0]],
    };
  };
  const project = 'proj_bench';
  const source = await docs.addSource(project, start);
  const runs = [];
  for (const name of ['crawl', 're-crawl']) {
    if (name === 're-crawl') {
      shift = Number(values.later) * 86_400_000;
      await docs.recrawlNow(project, source.id);
    }
    const time = await timed(() => docs.tick());
    const [summary] = await docs.sources(project);
    runs.push({ name, ...time, run: summary.lastRun, pages: summary.pages });
    process.send?.({ ran: name });
    await new Promise((done) => process.once('message', done));
  }
  await docs.close();
  process.send?.({ runs });
}

async function parent() {
  const dir = await mkdtemp(join(tmpdir(), 'crawl-network-'));
  try {
    const root = values.manual
      ? manual(values.manual)
      : await generate(join(dir, 'site'), Number(values.pages), values.lastmod);
    const tls = await certificate(dir);
    const site = await serveFolder(values.manual ? { '/docs/': root } : root, { tls });
    const proxy = await delayProxy(Number(new URL(site.url).port), Number(values.rtt) / 2);
    const start = `https://${HOST}:${proxy.port}/docs/`;
    const what =
      values.manual ?? `${values.pages} generated pages${values.lastmod ? ', sitemap with lastmod' : ''}`;
    console.log(`${start} (${what}), RTT ${values.rtt} ms, re-crawl ${values.later} days later`);
    const script = new URL(import.meta.url).pathname;
    const worker = spawn(
      process.execPath,
      [script, '--child', start, '--service', values.service, '--later', values.later],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
      },
    );
    const accepted = [];
    let runs;
    let [before, asked] = [0, 0];
    for await (const [message] of onMessages(worker)) {
      if (message.runs) runs = message.runs;
      if (!message.ran) continue;
      // The connections of this run, and those still open once it ended (a leak shows here).
      await new Promise((done) => setTimeout(done, 200));
      accepted.push({
        accepted: site.connections.accepted - before,
        openAfter: site.connections.open,
        requests: site.requests.length - asked,
      });
      [before, asked] = [site.connections.accepted, site.requests.length];
      worker.send('next');
    }
    for (const [i, run] of (runs ?? []).entries()) {
      const pages = run.run?.pagesRead ?? run.pages;
      console.log(
        `${run.name}: ${(run.ms / 1000).toFixed(1)} s, CPU ${(run.cpuMs / 1000).toFixed(1)} s ` +
          `(${(run.cpuMs / Math.max(pages, 1)).toFixed(1)} ms a page), ${run.pages} pages indexed, ` +
          `${run.run?.failures?.length ?? '?'} failures, ${accepted[i].accepted} connections ` +
          `for ${accepted[i].requests} requests (${accepted[i].openAfter} open after), ` +
          `load ${run.load.map((l) => l.toFixed(1)).join(' → ')}`,
      );
      for (const failure of run.run?.failures ?? []) console.log(`  ${failure.url}: ${failure.reason}`);
    }
    proxy.close();
    await site.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A key and a self-signed certificate for the bench's host name, made in `dir`. */
async function certificate(dir) {
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  args.push('-days', '1', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`);
  execFileSync('openssl', [...args, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key: await readFile(key), cert: await readFile(cert) };
}

/** The child's messages, until it exits. */
async function* onMessages(worker) {
  const queue = [];
  let wake;
  let done = false;
  worker.on('message', (m) => (queue.push([m]), wake?.()));
  worker.on('exit', () => ((done = true), wake?.()));
  while (!done || queue.length) {
    if (queue.length) yield queue.shift();
    else await new Promise((resolve) => (wake = resolve));
  }
}

/**
 * A TCP proxy on 127.0.0.1 that delivers every chunk `delayMs` after it arrived, each direction:
 * a round trip of twice that, without a bandwidth limit (a docs page is small; latency is what
 * a connection's handshakes pay). The kernel completes a TCP handshake before the proxy sees
 * it, so a new connection's first round trip is added here: nothing the client sends within
 * it goes on before it is over, as a client waits for the server's SYN-ACK before sending.
 */
async function delayProxy(target, delayMs) {
  // Each end is passed on once what came before it is delivered (half-open: a side that ends
  // does not close the other), and a side is destroyed only when the other failed: destroying
  // a socket drops what it still has to write, which would cut answers short.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: target, host: '127.0.0.1', allowHalfOpen: true });
    const connected = Date.now() + 2 * delayMs;
    const relay = (from, to, after = 0) => {
      const later = (/** @type {() => void} */ deliver) =>
        setTimeout(deliver, Math.max(delayMs, after - Date.now() + delayMs));
      from.on('data', (chunk) => later(() => to.writable && to.write(chunk)));
      from.on('end', () => later(() => to.end()));
      from.on('error', () => later(() => to.destroy()));
    };
    relay(client, upstream, connected);
    relay(upstream, client);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: server.address().port,
    close: () => server.close(),
  };
}

/** Debian's HTML manual (python3-doc), which `bench/answers.mjs` crawls too. */
function manual(name) {
  const pattern = { python: /^python3(\.\d+)?$/ }[name];
  if (!pattern) throw new Error(`no manual ${name}`);
  for (const dir of readdirSync('/usr/share/doc')
    .filter((d) => pattern.test(d))
    .sort())
    if (existsSync(join('/usr/share/doc', dir, 'html', 'index.html')))
      return join('/usr/share/doc', dir, 'html');
  throw new Error('python3-doc is not installed: apt-get install -y python3-doc');
}

/**
 * A manual of `count` pages under /docs/: an index of chapters, each chapter's page listing its
 * pages, each page a few sections of text (some 6 KB, a manual page's size) linking to its
 * neighbours, as a generator's navigation does.
 */
async function generate(root, count, lastmod) {
  const docs = join(root, 'docs');
  await mkdir(docs, { recursive: true });
  const perChapter = 30;
  const chapters = Math.ceil(count / perChapter);
  const words = 'crawler connection socket handshake latency request answer section page index'.split(' ');
  const text = (seed, n) =>
    Array.from({ length: n }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join(' ');
  const page = (title, body) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  await writeFile(
    join(docs, 'index.html'),
    page('Manual', Array.from({ length: chapters }, (_, c) => `<a href="c${c}/">Chapter ${c}</a>`).join(' ')),
  );
  for (let c = 0; c < chapters; c++) {
    await mkdir(join(docs, `c${c}`));
    const pages = Array.from({ length: Math.min(perChapter, count - c * perChapter) }, (_, p) => p);
    await writeFile(
      join(docs, `c${c}`, 'index.html'),
      page(`Chapter ${c}`, pages.map((p) => `<a href="p${p}.html">Page ${c}.${p}</a>`).join(' ')),
    );
    for (const p of pages) {
      const sections = [0, 1, 2, 3]
        .map((s) => `<h2 id="s${s}">Section ${c}.${p}.${s}</h2><p>${text(c * 1000 + p * 10 + s, 200)}</p>`)
        .join('');
      const nav = [p - 1, p + 1].filter((n) => pages.includes(n)).map((n) => `<a href="p${n}.html">${n}</a>`);
      await writeFile(join(docs, `c${c}`, `p${p}.html`), page(`Page ${c}.${p}`, sections + nav.join(' ')));
    }
  }
  if (lastmod) {
    // Every page, the index and chapters too; addresses relative to the sitemap's, so that they
    // name the proxy's host and port, whatever they are.
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const entries = [`<url><loc>/docs/</loc><lastmod>${at}</lastmod></url>`];
    for (let c = 0; c < chapters; c++) {
      entries.push(`<url><loc>/docs/c${c}/</loc><lastmod>${at}</lastmod></url>`);
      for (let p = 0; p < Math.min(perChapter, count - c * perChapter); p++)
        entries.push(`<url><loc>/docs/c${c}/p${p}.html</loc><lastmod>${at}</lastmod></url>`);
    }
    await writeFile(join(docs, 'sitemap.xml'), `<?xml version="1.0"?><urlset>${entries.join('')}</urlset>`);
  }
  return root;
}
