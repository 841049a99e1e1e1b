import type { Request } from 'express';
import { z } from 'zod';
import type { AppError, ErrorCode, ErrorDetail } from '@mailer/domain';
import { ERROR_STATUS } from '../../http/error-status';
import { bearerCredential, withDetails, type ApiDialect } from '../../http/dialect';

/** Resend's error names (its SDK's RESEND_ERROR_CODE_KEY), each with the status Resend answers it with. */
type ResendError = { status: number; name: string };

const RESTRICTED: ResendError = { status: 401, name: 'restricted_api_key' };
const NOT_FOUND: ResendError = { status: 404, name: 'not_found' };
const INVALID_PARAMETER: ResendError = { status: 422, name: 'invalid_parameter' };

/** The contract's codes in Resend's terms (docs/api-decisions.md, "Resend and Postmark adapters"); unlisted codes keep their status as validation_error. */
const RESEND_ERRORS: Partial<Record<ErrorCode, ResendError>> = {
  invalid_json: { status: 400, name: 'validation_error' },
  invalid_query: INVALID_PARAMETER,
  invalid_cursor: INVALID_PARAMETER,
  idempotency_key_required: { status: 400, name: 'invalid_idempotency_key' },
  wrong_key_type: RESTRICTED,
  insufficient_scope: RESTRICTED,
  // Resend answers a from address it may not send from (an unverified domain) with 403 validation_error.
  sender_not_allowed: { status: 403, name: 'validation_error' },
  sending_paused: { status: 403, name: 'validation_error' },
  not_found: NOT_FOUND,
  email_not_found: NOT_FOUND,
  domain_not_found: NOT_FOUND,
  inbound_email_not_found: NOT_FOUND,
  method_not_allowed: { status: 405, name: 'method_not_allowed' },
  email_not_cancelable: { status: 409, name: 'validation_error' },
  email_not_reschedulable: { status: 409, name: 'validation_error' },
  idempotency_conflict: { status: 409, name: 'invalid_idempotent_request' },
  validation_error: { status: 422, name: 'validation_error' },
  rate_limit_exceeded: { status: 429, name: 'rate_limit_exceeded' },
  active_delivery_limit_exceeded: { status: 429, name: 'rate_limit_exceeded' },
  internal_error: { status: 500, name: 'application_error' },
  service_unavailable: { status: 503, name: 'application_error' },
  operator_token_not_configured: { status: 503, name: 'application_error' },
};

/** /v1's body paths in Resend's field names: `content.plain` is `text`, an attachment's `content_base64` is its `content`, a template's `alias` its `id`. */
export function resendPath(path: string): string {
  return path
    .replace(/(^|\.)content\.plain$/, '$1text')
    .replace(/(^|\.)content\.html$/, '$1html')
    .replace(/(^|\.)content$/, '$1html')
    .replace(/\.content_base64$/, '.content')
    .replace(/(^|\.)template\.alias$/, '$1template.id');
}

const isRequired = (d: ErrorDetail) => d.message === 'is required';

function resendError(error: AppError, req: Request): ResendError {
  if (error.code === 'unauthorized') return bearerCredential(req) ? { status: 403, name: 'invalid_api_key' } : { status: 401, name: 'missing_api_key' };
  const details = error.details ?? [];
  if (error.code === 'validation_error' && details.length > 0) {
    if (details.every(isRequired)) return { status: 422, name: 'missing_required_field' };
    if (details.every((d) => /^(\[\d+\]\.)?from$/.test(d.path))) return { status: 422, name: 'invalid_from_address' };
  }
  if (error.code === 'rate_limit_exceeded') {
    if (details.some((d) => d.message.includes('per 30 days '))) return { status: 429, name: 'monthly_quota_exceeded' };
    if (details.some((d) => d.message.includes('per 24 hours '))) return { status: 429, name: 'daily_quota_exceeded' };
  }
  return RESEND_ERRORS[error.code] ?? { status: ERROR_STATUS[error.code], name: 'validation_error' };
}

export const resendErrorSchema = z
  .object({
    statusCode: z.number().int().meta({ description: 'The HTTP status, repeated.' }),
    name: z.string().meta({ description: "Resend's error name: validation_error, missing_required_field, invalid_from_address, not_found, restricted_api_key, …" }),
    message: z.string().meta({ description: 'For people; names every field at fault.' }),
  })
  .meta({ id: 'ResendError' });

/** Resend's HTTP API (docs/api-decisions.md, "Resend and Postmark adapters"): a Bearer key, errors as `{statusCode, name, message}`. */
export const resendDialect: ApiDialect = {
  securityScheme: 'resendKey',
  credential: bearerCredential,
  render(error, req) {
    const { status, name } = resendError(error, req);
    return { status, body: { statusCode: status, name, message: withDetails(error, resendPath) } };
  },
  errorSchema: resendErrorSchema,
};
