import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, NextFunction, Request, Response } from 'express';
import { AppError, isOperatorAuthorized } from '@mailer/domain';
import type { ApiDependencies } from '../container';
import { operatorTokenNotConfigured } from '../http/auth';
import { sendError } from '../http/error-handler';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/** Whether a browser says the request comes from a page of another origin (docs/api-decisions.md, "Keys and accounts"). */
function isCrossSite(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site !== 'same-origin';
  // Browsers without Fetch Metadata still send Origin on a POST, PUT, PATCH or DELETE: its host must be this one.
  const origin = req.get('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.get('host');
  } catch {
    return true;
  }
}

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

/** Bull Board for operators, behind OPERATOR_TOKEN (Bearer, or Basic with the token as password); off without it. */
export function mountQueueDashboard(app: Express, deps: ApiDependencies): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(deps.deliveryQueue.queue, { readOnlyMode: false })], serverAdapter });
  const requireOperator = (req: Request, res: Response, next: NextFunction) => {
    if (!deps.config.operatorToken) return sendError(res, operatorTokenNotConfigured());
    if (isOperatorAuthorized(req.get('authorization'), deps.config.operatorToken)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="mailer operators"');
    sendError(res, new AppError('unauthorized', 'The operator token is required.'));
  };
  // Bull Board is an Express app of its own, which would name Express in every answer.
  const dashboard = (serverAdapter.getRouter() as Express).disable('x-powered-by');
  app.use(QUEUE_DASHBOARD_PATH, requireOperator, refuseCrossSiteChanges, dashboard);
}
