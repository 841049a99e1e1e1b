import type { NextFunction, Request, Response } from 'express';
import { pooledRandomBytes } from '@mailer/domain';
import type { AuthenticatedKey } from './auth';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      auth?: AuthenticatedKey;
    }
  }
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the client's own when well formed) and an X-Request-Id header; log lines of the request carry it. */
export function requestContext() {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    req.id = given && CLIENT_REQUEST_ID.test(given) ? given : `req_${pooledRandomBytes(12).toString('hex')}`;
    res.setHeader('X-Request-Id', req.id);
    next();
  };
}
