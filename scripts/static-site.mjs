// A folder served over node:http as a static site would serve it: ETag and Last-Modified with
// 304 on revalidation, index.html for a folder, a content type by extension. The crawler's tests
// serve their fixture site with it, and `npm run bench:answers` a whole manual.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { extname, join, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Serves `mounts` (a folder, or `{ '/path/': folder }`) on 127.0.0.1, over HTTPS when given
 * `tls` (a key and certificate). `gate` sees every request first (a rate limit), then `routes`
 * answer given paths (a test's failing page, a redirect). Every request is logged in `requests`,
 * with when it arrived, and every connection counted: what keep-alive saves a site.
 * @param {string | Record<string, string>} mounts
 * @param {{ routes?: Record<string, (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void>, gate?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => boolean, tls?: { key: string | Buffer, cert: string | Buffer } }} [options]
 */
export async function serveFolder(mounts, options = {}) {
  const roots = Object.entries(typeof mounts === 'string' ? { '/': mounts } : mounts)
    .map(([prefix, dir]) => [prefix, resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  /** @type {{ method: string, path: string, status: number, at: number, bytes: number }[]} */
  const requests = [];
  /** @type {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>} */
  const answer = async (req, res) => {
    const at = Date.now();
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    // The body's bytes, as sent: what a re-crawl costs the site.
    let bytes = 0;
    const count = (/** @type {unknown} */ chunk) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) bytes += Buffer.byteLength(chunk);
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = /** @type {typeof res.write} */ ((chunk, ...rest) => (count(chunk), write(chunk, ...rest)));
    // Logged as the answer is ended, not at 'finish': a client in this process may read a short
    // answer (a 304) before 'finish' fires, and a crawl that returned had its last request missing.
    let logged = false;
    res.end = /** @type {typeof res.end} */ (
      (chunk, ...rest) => {
        count(chunk);
        if (!logged) requests.push({ method: req.method ?? '', path, status: res.statusCode, at, bytes });
        logged = true;
        return end(chunk, ...rest);
      }
    );
    if (options.gate?.(req, res)) return;
    const route = options.routes?.[path];
    if (route) return route(req, res);
    const mount = roots.find(([prefix]) => path.startsWith(prefix));
    if (!mount) return res.writeHead(404).end('not found');
    let file = resolve(mount[1], `.${sep}${path.slice(mount[0].length)}`);
    if (file !== mount[1] && !file.startsWith(mount[1] + sep)) return res.writeHead(404).end('not found');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        if (!path.endsWith('/')) return res.writeHead(301, { Location: `${path}/` }).end();
        file = join(file, 'index.html');
        info = await stat(file);
      }
      const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      const modified = new Date(Math.floor(info.mtimeMs / 1000) * 1000);
      const since = Date.parse(req.headers['if-modified-since'] ?? '');
      const headers = { ETag: etag, 'Last-Modified': modified.toUTCString() };
      if (
        req.headers['if-none-match'] === etag ||
        (!req.headers['if-none-match'] && Number.isFinite(since) && since >= modified.getTime())
      )
        return res.writeHead(304, headers).end();
      res.writeHead(200, {
        ...headers,
        'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': info.size,
      });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).pipe(res);
    } catch {
      if (!res.headersSent) res.writeHead(404).end('not found');
    }
  };
  const server = options.tls ? createTlsServer(options.tls, answer) : createServer(answer);
  const connections = { accepted: 0, open: 0 };
  server.on('connection', (/** @type {import('node:net').Socket} */ socket) => {
    connections.accepted++;
    connections.open++;
    socket.on('close', () => connections.open--);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${address.port}`,
    requests,
    connections,
    close: () =>
      new Promise((done) => {
        server.close(() => done(undefined));
        server.closeAllConnections();
      }),
  };
}
