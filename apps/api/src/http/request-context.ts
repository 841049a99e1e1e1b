import type { NextFunction, Request, Response } from 'express';
import { pooledRandomBytes } from '@mailer/domain';
import type { Logger } from '@mailer/logger';
import type { AuthenticatedKey } from './auth';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      auth?: AuthenticatedKey;
    }
  }
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the client's own when well formed), a scoped logger and an X-Request-Id header. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    req.id = given && CLIENT_REQUEST_ID.test(given) ? given : `req_${pooledRandomBytes(12).toString('hex')}`;
    req.log = logger.child({ requestId: req.id });
    res.setHeader('X-Request-Id', req.id);
    next();
  };
}
