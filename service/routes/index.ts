/** The router: the service's paths (the contract's) to their routes. */
import {
  agentBase,
  agentPaths,
  publicBase,
  publicPaths,
  queryBase,
  queryPaths,
} from '../../contract/paths.js';
import { NUL_TEXT } from '../http/body.js';
import { badRequest, notFound } from '../http/errors.js';
import { underOrigins } from '../http/origins.js';
import { preflight } from '../http/responses.js';
import { SLOT, findRoute, pathPattern, routeTable } from '../http/route-table.js';
import { activity, removedAnalyticsActivity } from './activity.js';
import { cancel, reattach } from './answers.js';
import { chat } from './chat.js';
import { CONSOLE, consoleRoute } from './console/index.js';
import type { RequestInfo, RouteHandler, ServiceContext } from './context.js';
import { feedback, handoff } from './feedback.js';
import { downloadFile, uploadFile } from './files.js';
import { deleteThread, getThread, listThreads, renameThread } from './history.js';
import { publicChallenge, publicPreflight, publicSession } from './public-sessions.js';
import { describeIntegration } from './integration.js';
import { createSession } from './sessions.js';
import { isWidgetPath, widgetFile } from './widget.js';
import type { StoreRole } from '../storage/types.js';

const AGENT = agentBase(SLOT);
const QUERY = queryBase(SLOT);
const PUBLIC = publicBase(SLOT, SLOT);

const ROUTES = [
  ...routeTable<RouteHandler>(AGENT, [
    [agentPaths.sessions, { POST: createSession }],
    [agentPaths.chat, { POST: chat }],
    [agentPaths.feedback, { POST: feedback }],
    [agentPaths.handoff, { POST: handoff }],
    [agentPaths.answerStream(SLOT), { GET: reattach }],
    [agentPaths.answerCancel(SLOT), { POST: cancel }],
    [agentPaths.threads, { GET: listThreads }],
    [agentPaths.thread(SLOT), { GET: getThread, DELETE: deleteThread, PATCH: renameThread }],
    [agentPaths.files, { POST: uploadFile }],
    [agentPaths.file(SLOT), { GET: downloadFile }],
  ]),
  ...routeTable<RouteHandler>(QUERY, [
    [queryPaths.activity, { GET: activity }],
    [queryPaths.integration(SLOT), { GET: describeIntegration }],
  ]),
  ...routeTable<RouteHandler>(PUBLIC, [
    [publicPaths.challenge, { GET: publicChallenge }],
    [publicPaths.sessions, { POST: publicSession }],
  ]),
];
/** The public routes answer their own preflight: only an integration's allowed origins are cleared. */
const PUBLIC_ROUTE = pathPattern(`${PUBLIC}/`, { whole: false });
const REMOVED_ANALYTICS = pathPattern(QUERY + queryPaths.removedAnalyticsActivity);
const AGENT_PROJECT = pathPattern(AGENT, { whole: false });
const SESSIONS = pathPattern(AGENT + agentPaths.sessions);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The path has malformed percent-encoding.');
  }
}

/** Finds the route of a request under the service's base path and runs it. */
export async function route(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const fullPath = new URL(request.url).pathname;
  if (!fullPath.startsWith(ctx.basePath)) throw notFound();
  // PostgreSQL's text holds no NUL: a path or a filter with one failed its statement, a 500 (decision 759).
  if (request.url.includes('%00')) throw badRequest(NUL_TEXT);
  const path = fullPath.slice(ctx.basePath.length);
  // The widget's files need no database.
  if (isWidgetPath(path)) return widgetFile(ctx, request, info, path);
  // The start-up projects exist before anything reads the directory (once; again after a failure).
  await ctx.directory.ready();
  if (path === CONSOLE || path.startsWith(`${CONSOLE}/`)) return consoleRoute(ctx, request, info, path);
  // Browsers call the agent API (but not the session mint): the project's allowed origins apply.
  const agent = AGENT_PROJECT.exec(path);
  if (agent && !SESSIONS.test(path))
    return underOrigins(await ctx.directory.project(decode(agent[1])), request, () =>
      dispatch(ctx, request, info, path),
    );
  return dispatch(ctx, request, info, path);
}

async function dispatch(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  path: string,
): Promise<Response> {
  if (request.method === 'OPTIONS') {
    const publicRoute = PUBLIC_ROUTE.exec(path);
    return publicRoute
      ? publicPreflight(ctx, request, decode(publicRoute[1]), decode(publicRoute[2]))
      : preflight();
  }
  const removed = REMOVED_ANALYTICS.exec(path);
  if (removed) return removedAnalyticsActivity(ctx, decode(removed[1]));
  const found = findRoute(ROUTES, request.method, path);
  if (!found) throw notFound();
  return found.handler(ctx, request, info, ...found.params.map(decode));
}
