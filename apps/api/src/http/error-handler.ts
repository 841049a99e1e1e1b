import type { NextFunction, Request, Response } from 'express';
import { AppError, type ErrorCode } from '@mailer/domain';
import { isDatabaseUnavailable } from '@mailer/operations';
import type { Logger } from '@mailer/logger';
import { ERROR_CODE_LOCAL } from './access-log';
import { ERROR_STATUS } from './error-status';
import { rateLimitHeaderValues } from './rate-limit-headers';
import { boundDetails } from './error-details';
import { sendJson } from './respond';
import { dialectOf } from './dialect';

/** Errors raised by body-parser and Express itself, by their `type`. */
const FRAMEWORK_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  'entity.too.large': { code: 'payload_too_large', message: 'The request body exceeds 16 MiB.' },
  'entity.parse.failed': { code: 'invalid_json', message: 'The request body is not valid JSON.' },
  'encoding.unsupported': { code: 'unsupported_media_type', message: 'The request body encoding is not supported.' },
  'charset.unsupported': { code: 'unsupported_media_type', message: 'The request body charset is not supported.' },
  'request.aborted': { code: 'invalid_json', message: 'The request body was not received completely.' },
  'encoding.failed': { code: 'invalid_json', message: 'The request body could not be decoded as its Content-Encoding says.' },
};

/**
 * A framework error's `type`. body-parser passes on the failure of its decompression
 * stream (a corrupt or cut-short gzip, deflate or br body) untyped; zlib's codes name it.
 */
function frameworkErrorType(error: unknown): string | undefined {
  const e = error as { type?: unknown; code?: unknown } | undefined;
  if (typeof e?.type === 'string') return e.type;
  return typeof e?.code === 'string' && /^(Z_|ERR__ERROR_)/.test(e.code) ? 'encoding.failed' : undefined;
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const type = frameworkErrorType(error);
  const known = type ? FRAMEWORK_ERRORS[type] : undefined;
  if (known) return new AppError(known.code, known.message);
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'The service is temporarily unavailable; retry later.', {
      retryAfterSeconds: 5,
    });
  }
  return new AppError('internal_error', 'An unexpected error occurred.');
}

export function sendError(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  if (error.rateLimit) for (const [name, value] of Object.entries(rateLimitHeaderValues(error.rateLimit))) res.setHeader(name, value);
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res.locals[ERROR_CODE_LOCAL] = error.code;
  const bounded = error.details?.length ? new AppError(error.code, error.message, { details: boundDetails(error.details) }) : error;
  // An adapter's route answers in its API's terms (docs/api-decisions.md, "Resend and Postmark adapters").
  const dialect = dialectOf(res);
  if (dialect) {
    const { status, body } = dialect.render(bounded, res.req);
    sendJson(res, status, body);
    return;
  }
  sendJson(res, ERROR_STATUS[error.code], {
    error: { code: error.code, message: error.message, ...(bounded.details?.length ? { details: bounded.details } : {}) },
  });
}

/** The one place errors become HTTP: ours as they are, framework errors by type, anything else as a logged 500. */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(error);
    // An outage is logged; a 503 of our own making (too many bodies in flight) is load, not a failure.
    if (appError.code === 'internal_error' || (appError.code === 'service_unavailable' && appError !== error)) {
      const err = error as Error | undefined;
      logger.error('request failed', { request_id: req.id, code: appError.code, error: err?.message, stack: err?.stack });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, appError);
  };
}
