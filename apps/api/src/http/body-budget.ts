import type { Request, Response } from 'express';
import { AppError } from '@mailer/domain';

/** The largest request body (docs/api-decisions.md, "Conventions"), decoded; body-parser answers 413 beyond it. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The request-body bytes the process holds at once, received, buffered and parsed, bounded
 * by MAX_BODY_BYTES_IN_FLIGHT (docs/api-decisions.md "Request bodies"): a body is buffered
 * and parsed whole, so memory grows with the bodies in flight. A request whose body does
 * not fit is refused with 503 before any of its body is read.
 */
export class BodyBudget {
  private inFlight = 0;

  constructor(private readonly limit: number) {}

  /**
   * Holds the bytes `req`'s body may take until the answer is sent (or the client goes
   * away): its Content-Length, or the body limit when its size is not known in advance
   * (chunked) or may grow as it is decoded (Content-Encoding).
   */
  admit(req: Request, res: Response): void {
    const bytes = bytesToHold(req);
    if (bytes === 0) return;
    if (this.inFlight + bytes > this.limit) {
      throw new AppError('service_unavailable', 'Too many request bodies are being received at once; retry shortly.', {
        retryAfterSeconds: 1,
      });
    }
    this.inFlight += bytes;
    res.once('close', () => {
      this.inFlight -= bytes;
    });
  }
}

function bytesToHold(req: Request): number {
  const { 'content-length': declared, 'content-encoding': encoding = 'identity', 'transfer-encoding': chunked } = req.headers;
  if (declared === undefined && chunked === undefined) return 0;
  const length = Number(declared);
  // Over the limit, body-parser answers 413 without reading a byte.
  if (length > MAX_BODY_BYTES) return 0;
  return chunked === undefined && encoding.toLowerCase() === 'identity' ? length : MAX_BODY_BYTES;
}
