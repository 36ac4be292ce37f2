import { agentPaths, queryPaths } from '../../contract/paths.js';
import { activity, removedAnalyticsActivity } from './activity.js';
import { cancel, reattach } from './answers.js';
import { chat } from './chat.js';
import { feedback, handoff } from './feedback.js';
import { deleteThread, getThread, listThreads, renameThread } from './history.js';
import { CONSOLE, consoleRoute } from './console/index.js';
import { createSession } from './sessions.js';
import type { StoreRole } from '../storage/types.js';
import type { RequestInfo, ServiceContext } from './context.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { underOrigins } from '../http/origins.js';
import { preflight } from '../http/responses.js';

type Handler = (
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  ...params: string[]
) => Promise<Response>;
type Route = { pattern: RegExp; methods: Record<string, Handler> };

const ID = '([^/]+)';
const AGENT = `^/agent/v1/projects/${ID}/agent`;
const QUERY = `^/query/v1/projects/${ID}`;
/** Stands for an id in a contract path; encodeURIComponent leaves it as it is. */
const SLOT = '__id__';
/** A contract path with its id segments turned into capture groups. */
const path = (prefix: string, tail: string) => new RegExp(`${prefix}${tail.replaceAll(SLOT, ID)}$`);

const ROUTES: Route[] = [
  { pattern: path(AGENT, agentPaths.sessions), methods: { POST: createSession } },
  { pattern: path(AGENT, agentPaths.chat), methods: { POST: chat } },
  { pattern: path(AGENT, agentPaths.feedback), methods: { POST: feedback } },
  { pattern: path(AGENT, agentPaths.handoff), methods: { POST: handoff } },
  { pattern: path(AGENT, agentPaths.answerStream(SLOT)), methods: { GET: reattach } },
  { pattern: path(AGENT, agentPaths.answerCancel(SLOT)), methods: { POST: cancel } },
  { pattern: path(AGENT, agentPaths.threads), methods: { GET: listThreads } },
  {
    pattern: path(AGENT, agentPaths.thread(SLOT)),
    methods: { GET: getThread, DELETE: deleteThread, PATCH: renameThread },
  },
  { pattern: path(QUERY, queryPaths.activity), methods: { GET: activity } },
];
const REMOVED_ANALYTICS = path(QUERY, queryPaths.removedAnalyticsActivity);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The path has malformed percent-encoding.');
  }
}

const AGENT_PROJECT = new RegExp(AGENT);
const SESSIONS = path(AGENT, agentPaths.sessions);

/** Finds the route of a request under the service's base path and runs it. */
export async function route(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const fullPath = new URL(request.url).pathname;
  if (!fullPath.startsWith(ctx.basePath)) throw notFound();
  const path = fullPath.slice(ctx.basePath.length);
  // The start-up projects exist before anything reads the directory (once; again after a failure).
  await ctx.directory.ready();
  if (path === CONSOLE || path.startsWith(`${CONSOLE}/`))
    return consoleRoute(ctx, request, info, path.slice(CONSOLE.length));
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
  if (request.method === 'OPTIONS') return preflight();
  const removed = REMOVED_ANALYTICS.exec(path);
  if (removed) return removedAnalyticsActivity(ctx, decode(removed[1]));
  for (const { pattern, methods } of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    const handler = methods[request.method];
    if (!handler)
      throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here.`, {
        Allow: Object.keys(methods).join(', '),
      });
    return handler(ctx, request, info, ...match.slice(1).map(decode));
  }
  throw notFound();
}
