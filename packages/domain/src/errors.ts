import type { RateLimitHeaders } from './emails/plan-limits';

/**
 * The contract's error vocabulary (CONTRACT.md section 2). Every expected failure is an
 * AppError carrying one of these codes; the HTTP layer maps code -> status in one table.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  wrong_key_type: 403,
  insufficient_scope: 403,
  not_found: 404,
  email_not_found: 404,
  domain_not_found: 404,
  sender_not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  domain_already_exists: 409,
  external_id_conflict: 409,
  domain_has_active_senders: 409,
  sender_already_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  message_too_large: 422,
  sender_not_allowed: 422,
  rate_limit_exceeded: 429,
  active_delivery_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** Where the problem is, in the request body's own terms: `to[1]`, `content.html`. */
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Response headers the contract ties to this error (`WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** When a retry may succeed (the HTTP layer sends it as `Retry-After`). */
  retryAfterSeconds?: number;
  /** The account's pacing figures, for answers that reached the acceptance decision (sent as `RateLimit-*`). */
  rateLimit?: RateLimitHeaders;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  readonly retryAfterSeconds?: number;
  readonly rateLimit?: RateLimitHeaders;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.details = options.details;
    this.headers = options.headers;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.rateLimit = options.rateLimit;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function validationError(details: ErrorDetail[], message = 'The request body is invalid.'): AppError {
  return new AppError('validation_error', message, { details });
}
