import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, NextFunction, Request, Response } from 'express';
import { AppError, isOperatorAuthorized } from '@mailer/domain';
import type { ApiDependencies } from '../container';
import { operatorTokenNotConfigured } from '../http/auth';
import { sendError } from '../http/error-handler';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

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
  app.use(QUEUE_DASHBOARD_PATH, requireOperator, serverAdapter.getRouter());
}
