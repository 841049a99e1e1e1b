import type { ApiErrorCode } from './error-codes';
import type { components } from './schema';

export type ErrorBody = components['schemas']['Error']['error'];

/**
 * What `MailerApiError.code` can be: a code of the API's error enums (generated from its
 * document), `network_error` when no answer came (connection refused or reset, DNS failure),
 * `timeout` when the answer did not come within the `timeout`, or `http_<status>` for an error
 * answer that is not the API's own (a proxy's page, say).
 */
export type MailerErrorCode = ApiErrorCode | 'network_error' | 'timeout' | `http_${number}`;

/** An error answer of the API (docs/api-decisions.md, "Errors"), or no answer at all (`status` null). */
export class MailerApiError extends Error {
  override readonly name = 'MailerApiError';
  readonly code: MailerErrorCode;
  readonly details: ErrorBody['details'];

  constructor(
    /** The HTTP status; null when no answer came (`network_error`, `timeout`). */
    readonly status: number | null,
    readonly body: { error: ErrorBody },
    readonly requestId: string | null,
    /** Seconds, from Retry-After, when the API said when to come back. */
    readonly retryAfter: number | null,
    options?: { cause?: unknown },
  ) {
    super(`${status ?? 'no answer'} ${body.error.code}: ${body.error.message}`, options);
    this.code = body.error.code as MailerErrorCode;
    this.details = body.error.details;
  }
}

/** An error answer's body; one that is not the API's own is given the same shape. */
export function errorBody(status: number, body: unknown): { error: ErrorBody } {
  const error = (body as { error?: ErrorBody } | undefined)?.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') return { error };
  return { error: { code: `http_${status}`, message: typeof body === 'string' ? body.slice(0, 256) : `HTTP ${status}` } };
}

/** The error of a request that got no answer. */
export function noAnswer(code: 'network_error' | 'timeout', message: string, cause: unknown): MailerApiError {
  return new MailerApiError(null, { error: { code, message } }, null, null, { cause });
}
