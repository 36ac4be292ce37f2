import { LATEST_WIDGET } from '../../contract/paths.js';
import { HttpError, notFound } from '../http/errors.js';
import type { RequestInfo, ServiceContext } from './context.js';

/** `/widget/{version}/{file}`: the version segment, then the file's name (which may hold a folder). */
const WIDGET_FILE = /^\/widget\/([^/]+)\/(.+)$/;

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
};

/** What every answer of this route carries: any page may load these files as scripts (§12). */
const CROSS_ORIGIN = {
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'X-Content-Type-Options': 'nosniff',
};

/** Whether `path` (under the base path) is one of this route's. */
export const isWidgetPath = (path: string) => path.startsWith('/widget/');

/**
 * GET /widget/{version}/{file} (wire contract §12): a file of the widget release this service
 * was built with, or of one the fleet served before (decision 741: a page pinned to it keeps
 * its chat after an upgrade), cached for good (the version is in the path); `latest` redirects
 * to this build's. Only a release's own files are served, looked up by their exact names, so
 * no path reaches anything else; any other version or name is 404.
 */
export async function widgetFile(
  ctx: ServiceContext,
  request: Request,
  _info: RequestInfo,
  path: string,
): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here.`, {
      Allow: 'GET, HEAD',
    });
  const release = ctx.widget;
  const match = WIDGET_FILE.exec(path);
  if (!release || !match) throw notFound();
  const [, version, name] = match;
  if (version === LATEST_WIDGET) {
    if (name !== 'sri.json' && !Object.hasOwn(release.sri, name)) throw notFound();
    return new Response(null, {
      status: 302,
      headers: {
        ...CROSS_ORIGIN,
        // Relative (`../0.1.0/agent-chat.js`): a proxy that serves the service under a path of its own keeps it.
        Location: `${'../'.repeat(name.split('/').length)}${release.version}/${name}`,
        // The next release moves `latest`: a cache asks again.
        'Cache-Control': 'no-cache',
      },
    });
  }
  const file = await ctx.widgetReleases.file(version, name);
  if (!file) throw notFound();
  const gzip = file.gzip && /\bgzip\b/.test(request.headers.get('Accept-Encoding') ?? '');
  const body = gzip ? file.gzip! : file.body;
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    headers: {
      ...CROSS_ORIGIN,
      'Content-Type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      'Content-Length': String(body.byteLength),
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
      ...(gzip && { 'Content-Encoding': 'gzip' }),
    },
  });
}
