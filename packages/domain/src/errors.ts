import type { RateLimitHeaders } from './emails/plan-limits';

/**
 * The error vocabulary (docs/api-decisions.md, "Errors"). Every expected failure is an
 * AppError carrying one of these codes; the HTTP layer maps each code to its status.
 */
export type ErrorCode =
  | 'invalid_json'
  | 'invalid_query'
  | 'invalid_cursor'
  | 'idempotency_key_required'
  | 'unauthorized'
  | 'wrong_key_type'
  | 'insufficient_scope'
  | 'not_found'
  | 'email_not_found'
  | 'domain_not_found'
  | 'sender_not_found'
  | 'suppression_not_found'
  | 'webhook_not_found'
  /** No template of that id or alias in the account (docs/api-decisions.md, "Templates"). */
  | 'template_not_found'
  | 'inbound_route_not_found'
  | 'inbound_email_not_found'
  | 'inbound_attachment_not_found'
  | 'method_not_allowed'
  | 'idempotency_conflict'
  | 'domain_already_exists'
  | 'external_id_conflict'
  | 'domain_has_active_senders'
  | 'sender_already_exists'
  /** An active route with that pattern already exists in the account. */
  | 'inbound_route_already_exists'
  /** The account has as many active domains as its plan's `max_domains` allows. */
  | 'domain_limit_exceeded'
  /** The account has as many webhook endpoints as its plan's `max_webhook_endpoints` allows. */
  | 'webhook_limit_exceeded'
  /** The account has as many templates as its plan's `max_templates` allows. */
  | 'template_limit_exceeded'
  /** Another template of the account has that alias. */
  | 'template_alias_conflict'
  /** A name the template uses is missing from the variables given to render it; `details` names it. */
  | 'template_variable_missing'
  /**
   * New mail from an account whose sending is paused (docs/api-decisions.md, "Reputation"):
   * 403 over HTTP, `550 5.7.1` over SMTP.
   */
  | 'sending_paused'
  /** POST /v1/emails/{id}/cancel after a delivery started (docs/api-decisions.md, "Scheduled send and cancel"). */
  | 'email_not_cancelable'
  /** PATCH /v1/emails/{id} after a delivery started (docs/api-decisions.md, "Scheduled send and cancel"). */
  | 'email_not_reschedulable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_error'
  | 'message_too_large'
  | 'sender_not_allowed'
  | 'rate_limit_exceeded'
  /** The request's unique recipients alone exceed a plan window's limit: no wait helps (docs/api-decisions.md, "Account view and plan limits"). */
  | 'plan_limit_exceeded'
  | 'active_delivery_limit_exceeded'
  | 'internal_error'
  | 'service_unavailable'
  /** An operator route on a server without OPERATOR_TOKEN. */
  | 'operator_token_not_configured'
  /** A change to the queue dashboard made from another site's page (docs/api-decisions.md, "Keys and accounts"). */
  | 'cross_site_request'
  /** Operator operations (docs/api-decisions.md, "Queue operations"): no such account, webhook delivery or destination. */
  | 'account_not_found'
  | 'webhook_delivery_not_found'
  | 'destination_not_found'
  /** A redelivery or test event for an endpoint that is disabled (docs/api-decisions.md, "Operator console", "Queue operations"). */
  | 'webhook_endpoint_disabled';

export interface ErrorDetail {
  /** Where the problem is, in the request body's own terms: `to[1]`, `content.html`. */
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Response headers that go with this error (`WWW-Authenticate`, set by the HTTP layer). */
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
}

export function validationError(details: ErrorDetail[], message = 'The request body is invalid.'): AppError {
  return new AppError('validation_error', message, { details });
}
