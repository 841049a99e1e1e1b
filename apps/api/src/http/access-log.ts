import type { NextFunction, Request, Response } from 'express';
import type { ErrorCode } from '@mailer/domain';
import type { ApiDependencies } from '../container';

/** Where sendError leaves the code of an error answer, for the access log and the refusal counter. */
export const ERROR_CODE_LOCAL = 'errorCode';

/** Where a mounted application (the queue dashboard) leaves its mount pattern: its own routes are not the API's. */
const ROUTE_PATTERN_LOCAL = 'routePattern';

/**
 * Names the requests of an application mounted at `pattern` (`/admin/queues/*`) by that
 * pattern in the access log and the metrics: routePattern cannot see inside it.
 */
export function mountPattern(pattern: string) {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.locals[ROUTE_PATTERN_LOCAL] = pattern;
    next();
  };
}

/**
 * The route pattern (`/v1/emails/:id`, `/console/accounts/:accountId`, `/admin/queues/*`), never
 * the concrete path: ids and query strings stay out of logs and labels. A route of a router mounted
 * at a path (the console) is prefixed with it (`req.baseUrl`, which Express leaves set once a route
 * of the router answered). Requests no route took (unknown paths) are `unmatched`.
 */
export function routePattern(req: Request, res: Response): string {
  const mounted = res.locals[ROUTE_PATTERN_LOCAL] as string | undefined;
  if (mounted !== undefined) return mounted;
  const route = (req.route as { path?: string } | undefined)?.path;
  return route === undefined ? 'unmatched' : `${req.baseUrl}${route}`;
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
        route: routePattern(req, res),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        request_id: req.id,
        account_id: req.auth?.accountId ?? null,
        ...(code ? { error_code: code } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    next();
  };
}
