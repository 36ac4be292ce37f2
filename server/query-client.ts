import { ApiError, errorFromResponse, isAbortError, NetworkError } from '../src/api/errors.js';

export interface ActivityQuery {
  /** Inclusive UTC day, `YYYY-MM-DD`. */
  start?: string;
  end?: string;
  integrationId?: string;
}

export interface ActivityCounts {
  sessions: number;
  threads: number;
  messages: number;
}

export interface ActivityReport {
  period: { start: string; end: string };
  totals: ActivityCounts & { unique_owners: number };
  by_integration: Array<ActivityCounts & { integration_id: string }>;
  by_day: Array<ActivityCounts & { date: string }>;
}

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

/** Server-side client of the query API. It uses only the replacement activity endpoint. */
export function createQueryClient(options: QueryClientOptions) {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base = `${options.baseUrl.replace(/\/+$/, '')}/query/v1/projects/${encodeURIComponent(options.projectId)}`;

  async function get<T>(path: string, query: Record<string, string | undefined>, signal?: AbortSignal): Promise<T> {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    let response: Response;
    try {
      response = await doFetch(url, { headers: { 'X-API-Key': options.apiKey, Accept: 'application/json' }, signal });
    } catch (error) {
      if (isAbortError(error)) throw error;
      throw new NetworkError(`GET ${url.pathname}: the query API could not be reached.`, { cause: error });
    }
    if (response.status === 410) {
      await response.body?.cancel();
      throw new EndpointGoneError(url.pathname, successorFromLink(response.headers.get('Link')));
    }
    if (!response.ok) throw await errorFromResponse(response, `GET ${url.pathname}`);
    return (await response.json()) as T;
  }

  return {
    activity({ start, end, integrationId }: ActivityQuery = {}, { signal }: { signal?: AbortSignal } = {}): Promise<ActivityReport> {
      return get<ActivityReport>('/activity/', { start, end, integration_id: integrationId }, signal);
    },
  };
}

export type QueryClient = ReturnType<typeof createQueryClient>;
