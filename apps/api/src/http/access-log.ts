import type { NextFunction, Request, Response } from 'express';
import type { ErrorCode } from '@mailer/domain';
import type { ApiDependencies } from '../container';

/** Where sendError leaves the code of an error answer, for the access log and the refusal counter. */
export const ERROR_CODE_LOCAL = 'errorCode';

/**
 * The route pattern (`/v1/emails/:id`), never the concrete path: ids and query strings stay out
 * of logs and labels. Requests no API route took (unknown paths, the queue dashboard) are `unmatched`.
 */
export function routePattern(req: Request): string {
  return (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
}

/**
 * One `request` log line per HTTP request once its answer is written or the client went
 * away (docs/api-decisions.md, "Operations"): method, route pattern, status, duration,
 * request id, the caller's account id and the error code of an error answer; never a key,
 * a header or a body. Error answers are also counted by code (`mailer_http_refusals_total`).
 */
export function accessLog(deps: Pick<ApiDependencies, 'logger' | 'metrics'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.once('close', () => {
      const code = res.locals[ERROR_CODE_LOCAL] as ErrorCode | undefined;
      if (code) deps.metrics.refusals.inc({ code });
      deps.logger.info('request', {
        method: req.method,
        route: routePattern(req),
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        requestId: req.id,
        accountId: req.auth?.accountId ?? null,
        ...(code ? { errorCode: code } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    next();
  };
}
