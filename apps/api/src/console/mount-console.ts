import { readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { AppError, connectionSource, isOperatorToken } from '@mailer/domain';
import type { ThrottleVerdict } from '@mailer/queue';
import type { ApiDependencies } from '../container';
import { operatorTokenNotConfigured } from '../http/auth';
import { isCrossSite } from '../http/cross-site';
import { ERROR_STATUS } from '../http/error-status';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from './console-cookie';
import { field, type ConsoleContext, type ConsoleRoute } from './console-route';
import { csrfTokenMatches, type ConsoleSession } from './console-sessions';
import { html } from './html';
import { CONSOLE_PATH, loginPage, page } from './layout';
import { consoleRoutes } from './pages';

/** Only this API's own scripts, styles and images; no inline script, no other origin, no framing. */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSETS_DIR = path.resolve(__dirname, '..', '..', 'assets', 'console');
const ASSET_TYPES: Record<string, string> = { 'console.css': 'text/css; charset=utf-8', 'console.js': 'text/javascript; charset=utf-8' };

function securityHeaders(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  res.setHeader('Cache-Control', 'no-store');
  // Same-origin referrers only: an error page links back to the console page the form was on.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

const firstValues = (query: Request['query']) =>
  Object.fromEntries(Object.entries(query).map(([name, value]) => [name, field({ [name]: value as string | string[] | undefined }, name)]));

export function mountConsole(app: Express, deps: ApiDependencies): void {
  const assets = new Map(Object.entries(ASSET_TYPES).map(([name, type]) => [name, { type, body: readFileSync(path.join(ASSETS_DIR, name)) }]));
  const router = express.Router();
  router.use(securityHeaders);
  router.get('/assets/:name', (req, res, next) => {
    const asset = assets.get(req.params.name!);
    if (!asset) return next();
    res.type(asset.type).send(asset.body);
  });
  // Forms post urlencoded fields only, and a few: a token, a name, limits, scopes.
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));
  router.use((req, _res, next) => {
    // A change must come from the console's own pages (Fetch Metadata or Origin), the login form included.
    if (req.method === 'POST' && isCrossSite(req)) return next(new AppError('cross_site_request', "The console's changes are taken only from its own pages."));
    next();
  });

  router.get('/login', (_req, res) => {
    res.type('html').send(loginPage().text);
  });
  // Failed sign-ins are throttled per client address as submission AUTH is (docs/api-decisions.md, "Operator console").
  const throttled = (res: Response, verdict: ThrottleVerdict & { blocked: true }) => {
    const seconds = Math.ceil(verdict.retryAfterMs / 1000);
    res.status(429).set('Retry-After', String(seconds)).type('html').send(loginPage(`Too many failed sign-ins from your address; try again in ${Math.ceil(seconds / 60)} minutes.`).text);
  };
  router.post('/login', async (req, res, next) => {
    try {
      if (!deps.config.operatorToken) throw operatorTokenNotConfigured();
      const address = connectionSource(req.ip ?? req.socket.remoteAddress ?? '');
      const verdict = await deps.consoleThrottle.check(address);
      if (verdict.blocked) return throttled(res, verdict);
      const presented = field(req.body ?? {}, 'token');
      if (presented === undefined || !isOperatorToken(presented, deps.config.operatorToken)) {
        const failure = await deps.consoleThrottle.recordFailure(address);
        if (failure.blocked) return throttled(res, failure);
        res.status(401).type('html').send(loginPage('The operator token is not valid.').text);
        return;
      }
      const { id } = await deps.consoleSessions.open();
      setSessionCookie(req, res, id);
      res.redirect(303, `${CONSOLE_PATH}/accounts`);
    } catch (error) {
      next(error);
    }
  });

  const withSession = async (req: Request, res: Response): Promise<ConsoleSession | undefined> => {
    const session = await deps.consoleSessions.touch(sessionIdOf(req));
    if (session) return session;
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.redirect(303, `${CONSOLE_PATH}/login`);
      return undefined;
    }
    throw new AppError('unauthorized', 'Sign in to the console first: there is no session, or it expired.');
  };

  router.post('/logout', async (req, res, next) => {
    try {
      const session = await withSession(req, res);
      if (!session) return;
      if (!csrfTokenMatches(session, req.body?._csrf)) throw csrfRefused();
      await deps.consoleSessions.close(sessionIdOf(req));
      clearSessionCookie(req, res);
      res.redirect(303, `${CONSOLE_PATH}/login`);
    } catch (error) {
      next(error);
    }
  });

  for (const route of consoleRoutes) {
    router[route.method](route.path, async (req, res, next) => {
      let session: ConsoleSession | undefined;
      try {
        session = await withSession(req, res);
        if (!session) return;
        if (route.method === 'post' && !csrfTokenMatches(session, req.body?._csrf)) throw csrfRefused();
        const context: ConsoleContext = { deps, req, res, session, params: req.params as Record<string, string>, query: firstValues(req.query), form: req.body ?? {} };
        const answer = await route.handle(context);
        if (answer) res.type('html').send(answer.text);
      } catch (error) {
        if (error instanceof AppError && session) {
          res.status(ERROR_STATUS[error.code]).type('html').send(page(session, route.title ?? 'Error', html`<p><a href="${backTo(req)}">Back</a></p>`, error).text);
          return;
        }
        next(error);
      }
    });
  }
  router.get('/', (_req, res) => res.redirect(303, `${CONSOLE_PATH}/accounts`));
  app.use(CONSOLE_PATH, router);
}

/** The console page the request came from (its Referer, when on this host), else the accounts page. */
function backTo(req: Request): string {
  try {
    const referer = new URL(req.get('referer') ?? '');
    if (referer.host === req.get('host') && referer.pathname.startsWith(`${CONSOLE_PATH}/`)) return referer.pathname + referer.search;
  } catch {
    // No Referer, or not a URL.
  }
  return `${CONSOLE_PATH}/accounts`;
}

const csrfRefused = () => new AppError('cross_site_request', 'The form is missing its CSRF token, or it is not this session\'s: reload the page and try again.');

