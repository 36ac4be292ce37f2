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
    return json({ detail: this.detail, code: this.code }, this.status, this.headers);
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
