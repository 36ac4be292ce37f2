import type { ProjectView } from './directory.js';
import { HttpError } from './errors.js';

/** `https://docs.example.com` from what an admin typed; null when it is not an http(s) origin. */
export function normalizeOrigin(value: string): string | null {
  const text = value.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // `https://*.example.com` parses, but no browser sends a wildcard: such a line matches nothing.
  if (url.hostname.includes('*')) return null;
  // Only scheme, host and port: a path, a query or credentials mean it is not an origin.
  return url.origin === text.toLowerCase() || url.origin === text ? url.origin : null;
}

/**
 * Whether a page of `origin` may call the agent API. A request without Origin is not a
 * browser's cross-origin call (a server, a same-origin GET): there is no page to refuse. An
 * integration with no allowed origins accepts any (the behaviour before lists existed). For
 * calls that name no integration (history, feedback, answers), any integration's list counts.
 */
function originAllowed(view: ProjectView, origin: string | null, integrationId?: string): boolean {
  if (origin === null) return true;
  const lists =
    integrationId !== undefined
      ? [view.integrations.get(integrationId)?.allowedOrigins ?? []]
      : [...view.integrations.values()].map((i) => i.allowedOrigins);
  return lists.length === 0 || lists.some((list) => list.length === 0 || list.includes(origin));
}

/** Whether any integration of the project restricts origins (CORS then names the origin). */
const restricted = (view: ProjectView) =>
  [...view.integrations.values()].some((i) => i.allowedOrigins.length > 0);

function originRefused(origin: string, integrationId?: string): HttpError {
  const where = integrationId ? `integration ${integrationId}` : 'any integration of this project';
  return new HttpError(
    403,
    'origin_not_allowed',
    `Pages on ${origin} may not use ${where}: add ${origin} to its "Allowed origins" on the Integrations page of the service console.`,
  );
}

/**
 * Runs an agent API handler under the project's allowed origins. Under a restricted project
 * every answer names the calling origin in CORS, the refusal too: the page learns only what it
 * sent (its origin, the integration it named) and can tell its visitor in words rather than
 * fail as a network error. The preflight passes for every origin: it cannot name the
 * integration (chat names it in the body, which a preflight does not carry), and the request
 * it clears is checked here before any work.
 */
export async function underOrigins(
  view: ProjectView | undefined,
  request: Request,
  run: () => Promise<Response>,
): Promise<Response> {
  const origin = request.headers.get('Origin');
  let response: Response;
  try {
    if (view && request.method !== 'OPTIONS' && !originAllowed(view, origin)) throw originRefused(origin!);
    response = await run();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = error.toResponse();
  }
  if (view && origin && restricted(view)) {
    response.headers.set('Access-Control-Allow-Origin', origin);
    response.headers.append('Vary', 'Origin');
  }
  return response;
}

/** Chat names its integration: that integration's list decides. */
export function requireOrigin(view: ProjectView, request: Request, integrationId: string): void {
  const origin = request.headers.get('Origin');
  if (!originAllowed(view, origin, integrationId)) throw originRefused(origin!, integrationId);
}
