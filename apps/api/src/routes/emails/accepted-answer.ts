import type { Response } from 'express';
import type { EmailDraft } from '@mailer/domain';
import type { ApiDependencies } from '../../container';
import type { AcceptEmailResult } from '../../operations/accept-email/accept-email';
import { rateLimitHeaderValues } from '../../http/rate-limit-headers';
import { sendJson } from '../../http/respond';

/** The 202 of POST /v1/emails and /v1/emails/batch: pacing headers, the replay marker, and the acceptance metrics. */
export function sendAccepted(res: Response, deps: ApiDependencies, result: AcceptEmailResult, drafts: EmailDraft[]): void {
  res.set(rateLimitHeaderValues(result.rateLimit));
  if (result.replayed) res.set('Idempotent-Replayed', 'true');
  else {
    deps.metrics.emailsAccepted.inc(drafts.length);
    deps.metrics.recipientsAccepted.inc(drafts.reduce((sum, d) => sum + d.recipients.recipients.length, 0));
  }
  sendJson(res, 202, result.response);
}
