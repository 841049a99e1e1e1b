import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '@mailer/domain';
import type { ApiDependencies } from '../container';
import { accessLog, routePattern } from './access-log';
import { authenticate, authenticateOperator, authorize } from './auth';
import { bearerCredential, useDialect } from './dialect';
import { errorHandler } from './error-handler';
import { readBody } from './read-body';
import { requestContext } from './request-context';
import { parseQuery, readJsonBody, validateBody, type RouteDefinition } from './route';

/** Observes every answered request under its route pattern, never its concrete path (ids would explode the label set). */
function recordRequestMetrics(deps: ApiDependencies) {
  return (req: Request, res: Response, next: NextFunction) => {
    const stop = deps.metrics.httpRequestDuration.startTimer();
    res.once('finish', () => {
      stop({ method: req.method, route: routePattern(req, res), status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * Reads a route's body as bytes, held against the budget until the answer is sent or the
 * client goes away; routes parse it after the resource checks.
 */
function bodyReader(deps: ApiDependencies) {
  const { http } = deps.config;
  const timeouts = { idleMs: http.bodyIdleTimeoutMs, totalMs: http.bodyTimeoutMs };
  return (req: Request, res: Response) => {
    const hold = deps.bodyBudget.open(req.auth?.accountId ?? 'anonymous');
    res.once('close', () => hold.release());
    return readBody(req, hold, timeouts);
  };
}

function runRoute(route: RouteDefinition, deps: ApiDependencies, readRouteBody: ReturnType<typeof bodyReader>) {
  const credential = route.dialect?.credential ?? bearerCredential;
  return async (req: Request, res: Response, next: NextFunction) => {
    if (route.dialect) useDialect(res, route.dialect);
    if (route.auth.kind === 'operator') {
      authenticateOperator(req.get('authorization'), deps.config.operatorToken);
    } else if (route.auth.kind !== 'none') {
      req.auth = await authenticate(deps.keys, credential(req));
      authorize(req.auth, route.auth);
    }
    // A route that takes no body never reads one: whatever was sent is left unread, and the answer closes the connection.
    const raw = route.body ? await readRouteBody(req, res) : undefined;
    const query = parseQuery(route.query, req.query);
    let parsed: { value: unknown } | undefined;
    const json = () => (parsed ??= { value: readJsonBody(raw, req.get('content-type')) }).value;
    await route.handle({
      req,
      res,
      deps,
      key: req.auth!,
      params: req.params as Record<string, string>,
      query,
      body: () => validateBody(route.body, json()),
      json,
    });
    // A client that went away mid-request gets no answer; any other silence is a bug.
    if (!res.headersSent && !req.socket.destroyed) next(new Error(`route ${route.method.toUpperCase()} ${route.path} sent no response`));
  };
}

/**
 * A path with a malformed percent-escape (`/v1/domains/%zz`) would fail inside the router
 * before authentication. Escaping its `%` signs makes the path mean its literal text, so
 * the request meets the usual checks and a malformed id answers `*_not_found`.
 */
function escapeMalformedPercentEncoding(req: Request, _res: Response, next: NextFunction) {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  try {
    decodeURIComponent(path);
  } catch {
    req.url = path.replace(/%/g, '%25') + (queryAt === -1 ? '' : req.url.slice(queryAt));
  }
  next();
}

export interface AppExtras {
  /** Mounted before the API routes, e.g. the operator dashboard. */
  mount?: (app: express.Express) => void;
}

export function createApp(deps: ApiDependencies, routes: RouteDefinition[], extras: AppExtras = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Behind a TLS-terminating proxy (TRUST_PROXY), req.secure and req.ip follow its X-Forwarded-* headers.
  app.set('trust proxy', deps.config.trustProxy);
  app.use(requestContext());
  app.use(escapeMalformedPercentEncoding);
  app.use(recordRequestMetrics(deps));
  app.use(accessLog(deps));
  extras.mount?.(app);

  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method.toUpperCase()]);
  const dialects = new Map(routes.flatMap((route) => (route.dialect ? [[route.path, route.dialect] as const] : [])));
  const methodNotAllowed = (allow: string[], path: string) => (_req: Request, res: Response) => {
    const dialect = dialects.get(path);
    if (dialect) useDialect(res, dialect);
    res.setHeader('Allow', allow.join(', '));
    throw new AppError('method_not_allowed', `This route accepts ${allow.join(', ')}.`);
  };
  // Express answers HEAD with a GET route; the API answers only the methods its document lists (docs/api-decisions.md, "The document matches the service").
  for (const [path, methods] of methodsByPath) app.head(path, methodNotAllowed(methods, path));
  const readRouteBody = bodyReader(deps);
  for (const route of routes) app[route.method](route.path, runRoute(route, deps, readRouteBody));
  for (const [path, methods] of methodsByPath) app.all(path, methodNotAllowed(methods, path));
  app.use(() => {
    throw new AppError('not_found', 'No such route.');
  });
  app.use(errorHandler(deps.logger));
  return app;
}
