import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, NextFunction, Request, Response } from 'express';
import { AppError, isOperatorAuthorized } from '@mailer/domain';
import { sessionIdOf, setSessionCookie } from '../console/console-cookie';
import type { ApiDependencies } from '../container';
import { mountPattern } from '../http/access-log';
import { operatorTokenNotConfigured } from '../http/auth';
import { isCrossSite } from '../http/cross-site';
import { sendError } from '../http/error-handler';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * A browser sends its cached Basic credentials with a request another site's page makes
 * (a form posting text/plain, a no-cors fetch), so the dashboard's changes must prove they
 * come from its own pages: not cross-site, and no body but JSON, which a cross-site page
 * cannot send without a preflight the dashboard never grants.
 */
function refuseCrossSiteChanges(req: Request, res: Response, next: NextFunction) {
  if (SAFE_METHODS.has(req.method)) return next();
  if (isCrossSite(req)) return sendError(res, new AppError('cross_site_request', "The dashboard's changes are taken only from its own pages."));
  const type = req.get('content-type');
  if (type !== undefined && !JSON_TYPE.test(type)) {
    return sendError(res, new AppError('unsupported_media_type', 'The dashboard takes application/json request bodies only.'));
  }
  next();
}

/**
 * Bull Board's pages load only what this API serves (its fonts come from the operator's system: the
 * link to Google Fonts is patched out, see patches/); inline styles are its own.
 */
export const QUEUE_DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Bull Board for operators, behind OPERATOR_TOKEN (Bearer, or Basic with the token as password) or a
 * console session (docs/api-decisions.md, "Operator console"); off without the token.
 */
export function mountQueueDashboard(app: Express, deps: ApiDependencies): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(deps.deliveryQueue.queue, { readOnlyMode: false })], serverAdapter });
  const requireOperator = async (req: Request, res: Response, next: NextFunction) => {
    if (!deps.config.operatorToken) return sendError(res, operatorTokenNotConfigured());
    try {
      if (await deps.consoleSessions.touch(sessionIdOf(req))) return next();
      const authorization = req.get('authorization');
      if (!isOperatorAuthorized(authorization, deps.config.operatorToken)) {
        res.setHeader('WWW-Authenticate', 'Basic realm="mailer operators"');
        return sendError(res, new AppError('unauthorized', 'The operator token is required.'));
      }
      // A browser sent Basic credentials for the dashboard's page, perhaps from a URL holding them
      // (http://ops:TOKEN@host/admin/queues), where fetch() refuses every request the page makes and
      // Bull Board's translations never load. It continues on a console session, at the same URL
      // without credentials (docs/api-decisions.md, "Operator console").
      if (req.method === 'GET' && req.path === '/' && /^\s*basic\s/i.test(authorization!)) {
        const { id } = await deps.consoleSessions.open();
        setSessionCookie(req, res, id);
        return res.redirect(303, `${req.protocol}://${req.get('host')}${QUEUE_DASHBOARD_PATH}/`);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
  const contentSecurityPolicy = (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', QUEUE_DASHBOARD_CONTENT_SECURITY_POLICY);
    next();
  };
  // Bull Board is an Express app of its own, which would name Express in every answer.
  const dashboard = (serverAdapter.getRouter() as Express).disable('x-powered-by');
  app.use(QUEUE_DASHBOARD_PATH, mountPattern(`${QUEUE_DASHBOARD_PATH}/*`), contentSecurityPolicy, requireOperator, refuseCrossSiteChanges, dashboard);
}
