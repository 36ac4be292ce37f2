import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionHandler, toNodeHandler } from '../../server/node.js';
import { createAgentService, type Agent } from '../../service/index.js';
import { ownerKey } from '../../contract/owner-key.js';

export const STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'";

/**
 * The strict policy with Trusted Types enforced, as a site hardened against DOM XSS sends it: no
 * string reaches an HTML or script sink, and the only policy allowed is Lit's, which makes its
 * templates (the widget has no sink of its own).
 */
export const TRUSTED_TYPES_CSP = `${STRICT_CSP}; require-trusted-types-for 'script'; trusted-types lit-html`;

const PROJECT = { id: 'proj_site', apiKey: 'key_site', integrationIds: ['int_site'] };

export type Script = 'iife' | 'es' | 'loader';
const TAGS: Record<Script, string> = {
  iife: '<script src="/agent-chat.iife.js"></script>',
  es: '<script type="module" src="/agent-chat.js"></script>',
  loader: '<script src="/agent-chat.loader.iife.js"></script>',
};

export function pageHtml(
  script: Script,
  scriptTag?: string,
  mode: 'inline' | 'launcher' = 'inline',
  ownerKey?: string,
  element = true,
): string {
  const tag = scriptTag ?? TAGS[script];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CMS page</title>${tag}</head>
<body><h1>A page with a pasted snippet</h1>
${
  element
    ? `<agent-chat mode="${mode}" project-id="${PROJECT.id}" integration-id="${PROJECT.integrationIds[0]}"
  session-endpoint="/api/agent-session" base-url="/service"${ownerKey ? ` owner-key="${ownerKey}"` : ''}></agent-chat>`
    : ''
}</body></html>`;
}

/** The visitor every session of the site is for (unless a test signs in another), and the `owner-key` a page of hers carries. */
export const VISITOR = 'visitor-1';
export const visitorOwnerKey = (visitor = VISITOR): Promise<string> => ownerKey(visitor, PROJECT.apiKey);

/**
 * A site owner's server in miniature: static files from dist/, a session endpoint made with
 * createSessionHandler, and the reference service, on 127.0.0.1. `csp` adds the strict policy.
 */
export async function startSite(options: {
  csp?: string;
  script: Script;
  scriptTag?: string;
  mode?: 'inline' | 'launcher';
  /** The service's agent (the demo agent, answering at once, by default). */
  agent?: Agent;
  /** The page's `owner-key` attribute (none by default). */
  ownerKey?: string;
  /** Who is signed in, asked at every page and session (VISITOR by default; `ownerKey` then unused). */
  visitor?: () => string;
  /** false: the page has no <agent-chat> of its own (the script tag adds it). */
  element?: boolean;
}): Promise<{ origin: string; close: () => Promise<void> }> {
  const visitor = options.visitor ?? (() => VISITOR);
  const service = createAgentService({
    projects: [PROJECT],
    basePath: '/service',
    rateLimit: false,
    agent: options.agent,
  });
  const serviceHandler = toNodeHandler(service.handle);
  const sessionHandler = toNodeHandler(
    createSessionHandler({
      apiKey: PROJECT.apiKey,
      projectId: PROJECT.id,
      baseUrl: 'http://127.0.0.1/service',
      getOwnerId: visitor,
      fetch: (input, init) => service.handle(new Request(input, init)),
    }),
  );
  // dist/*.js: the entries and the chunks the ES entry imports.
  const files = Object.fromEntries(
    readdirSync('dist')
      .filter((name) => name.endsWith('.js'))
      .map((name) => [`/${name}`, `dist/${name}`]),
  );
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.startsWith('/service/')) return void serviceHandler(req, res);
    if (path === '/api/agent-session') return void sessionHandler(req, res);
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const headers: Record<string, string> = options.csp ? { 'Content-Security-Policy': options.csp } : {};
    if (path === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
      const key = options.visitor ? await visitorOwnerKey(visitor()) : options.ownerKey;
      return void res.end(pageHtml(options.script, options.scriptTag, options.mode, key, options.element));
    }
    // A page of the site without the widget (a visitor's account, say).
    if (path === '/account') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(
        '<!doctype html><html lang="en"><title>Account</title><h1>Your account</h1></html>',
      );
    }
    if (files[path]) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' });
      return void res.end(readFileSync(files[path]));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A CDN in miniature on its own origin: dist/ under jsDelivr's path shape, with the
 * `Access-Control-Allow-Origin: *` a CDN sends (needed for `crossorigin` + `integrity`).
 */
export async function startCdn(): Promise<{
  url: (file: string) => string;
  origin: string;
  close: () => Promise<void>;
}> {
  const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
  const prefix = `/npm/agent-chat@${version}/dist/`;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const name = path.startsWith(prefix) ? path.slice(prefix.length) : '';
    if (!/^[\w.-]+\.js$/.test(name)) return void res.writeHead(404).end();
    res.writeHead(200, {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(readFileSync(`dist/${name}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (file) => `${origin}${prefix}${file}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
