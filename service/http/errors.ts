import type { ErrorBody } from '../../contract/types.js';
import { json } from './responses.js';

/** A non-2xx answer in the contract's `{detail, code}` shape. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toResponse(): Response {
    return json({ detail: this.detail, code: this.code } satisfies ErrorBody, this.status, this.headers);
  }
}

export const badRequest = (detail: string) => new HttpError(400, 'invalid_request', detail);
/** A request for an integration the project does not have: the page's setting, named, and where to check it. */
export const unknownIntegration = (id: unknown) =>
  badRequest(
    typeof id === 'string' && id
      ? `integration_id ${JSON.stringify(id.slice(0, 80))} is not an integration of this project: check the page's integration-id against the console's Integrations page.`
      : "integration_id is missing: set the page's integration-id.",
  );
export const notFound = (detail = 'Not found.') => new HttpError(404, 'not_found', detail);

/**
 * Seconds a caller waits before sending work this draining instance refused again: long enough
 * for a load balancer to see the readiness probe fail, short enough that a retry finds another
 * instance before the visitor gives up (decision 456).
 */
const DRAINING_RETRY_AFTER_S = 1;

/** This instance is shutting down: work that would start a model call goes to another one. */
export const draining = () =>
  new HttpError(
    503,
    'draining',
    'This instance of the service is shutting down and takes no new answers; send the request again.',
    { 'Retry-After': String(DRAINING_RETRY_AFTER_S) },
  );
