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
export const notFound = (detail = 'Not found.') => new HttpError(404, 'not_found', detail);
