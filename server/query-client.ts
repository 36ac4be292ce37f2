import type { ActivityReport } from '../contract/activity.js';
import { queryBase, queryPaths } from '../contract/paths.js';
import type { IntegrationInfo } from '../contract/types.js';
import { ApiError, errorFromResponse, isAbortError, NetworkError } from '../src/api/errors.js';
import {
  type Body,
  BodyTooLargeError,
  isRedirect,
  NO_REDIRECT,
  NULL_BODY_STATUS,
  readLimited,
  serviceBase,
} from './upstream.js';

/** An activity report of 366 days and many integrations stays well under this. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ActivityQuery {
  /** Inclusive UTC day, `YYYY-MM-DD`. */
  start?: string;
  end?: string;
  integrationId?: string;
}

export type { ActivityCounts, ActivityReport } from '../contract/activity.js';
export type { IntegrationInfo } from '../contract/types.js';

export interface QueryClientOptions {
  apiKey: string;
  projectId: string;
  baseUrl: string;
  fetch?: typeof fetch;
}

/** A query path that was removed; `successor` is where its data lives now. */
export class EndpointGoneError extends ApiError {
  override name = 'EndpointGoneError';
  constructor(
    readonly path: string,
    readonly successor: string | undefined,
  ) {
    super(410, 'gone', `${path} was removed${successor ? `; use ${successor} instead` : ''}.`);
  }
}

/** `<url>; rel="successor-version"` out of a Link header. */
export function successorFromLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (match && /rel="?[^";]*\bsuccessor-version\b/.test(match[2])) return match[1];
  }
  return undefined;
}

/** Where a query client's calls go, with which key. */
interface QueryTarget {
  fetch: typeof fetch;
  base: string;
  apiKey: string;
}

/** One GET on the query API: the key on it, no redirect followed, the answer read within its limit. */
async function getJson<T>(
  target: QueryTarget,
  path: string,
  query: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<T> {
  const url = new URL(`${target.base}${path}`);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  let response: Response;
  try {
    // Following a redirect would hand the API key to wherever it points.
    response = await target.fetch(url, {
      headers: { 'X-API-Key': target.apiKey, Accept: 'application/json' },
      redirect: NO_REDIRECT,
      signal,
    });
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw new NetworkError(`GET ${url.pathname}: the query API could not be reached.`, { cause: error });
  }
  if (response.status === 410) {
    await response.body?.cancel();
    throw new EndpointGoneError(url.pathname, successorFromLink(response.headers.get('Link')));
  }
  if (isRedirect(response)) {
    await response.body?.cancel().catch(() => {});
    throw new NetworkError(
      `GET ${url.pathname}: the query API answered with a redirect, which is not followed.`,
    );
  }
  let body: Uint8Array;
  try {
    body = await readLimited(response, MAX_BODY_BYTES, signal);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new NetworkError(`GET ${url.pathname}: ${error.message}`, { cause: error });
    throw error;
  }
  const limited = new Response(NULL_BODY_STATUS.has(response.status) ? null : (body as Body), {
    status: response.status,
    headers: response.headers,
  });
  if (!response.ok) throw await errorFromResponse(limited, `GET ${url.pathname}`);
  return (await limited.json()) as T;
}

/** Server-side client of the query API (activity, an integration). It uses only the replacement activity endpoint. */
export function createQueryClient(options: QueryClientOptions) {
  const target: QueryTarget = {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    base: `${serviceBase(options.baseUrl)}${queryBase(options.projectId)}`,
    apiKey: options.apiKey,
  };
  return {
    activity(
      { start, end, integrationId }: ActivityQuery = {},
      { signal }: { signal?: AbortSignal } = {},
    ): Promise<ActivityReport> {
      return getJson<ActivityReport>(
        target,
        queryPaths.activity,
        { start, end, integration_id: integrationId },
        signal,
      );
    },
    /**
     * One integration of the project as its console knows it (decision 464): whether it is
     * public and which origins may use it. A server checks its setup with it at start: an
     * `ApiError` 401 is a wrong key or project, 404 an integration the project does not have.
     */
    integration(integrationId: string, { signal }: { signal?: AbortSignal } = {}): Promise<IntegrationInfo> {
      return getJson<IntegrationInfo>(target, queryPaths.integration(integrationId), {}, signal);
    },
  };
}

export type QueryClient = ReturnType<typeof createQueryClient>;
