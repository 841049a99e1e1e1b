import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, NextFunction, Request, Response } from 'express';
import { isOperatorAuthorized } from '@mailer/domain';
import type { ApiDependencies } from '../container';
import { sendJson } from '../http/respond';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/** Bull Board for operators, behind OPERATOR_TOKEN (Bearer, or Basic with the token as password). */
export function mountQueueDashboard(app: Express, deps: ApiDependencies): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(deps.deliveryQueue.queue, { readOnlyMode: false })], serverAdapter });
  const requireOperator = (req: Request, res: Response, next: NextFunction) => {
    if (isOperatorAuthorized(req.get('authorization'), deps.config.operatorToken)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="mailer operators"');
    sendJson(res, 401, { error: { code: 'unauthorized', message: 'The operator token is required.' } });
  };
  app.use(QUEUE_DASHBOARD_PATH, requireOperator, serverAdapter.getRouter());
}
