import type { Response } from 'express';
import type { EmailRequest, ErrorCode } from '@mailer/domain';
import type { ApiDependencies } from '../../container';
import type { AcceptEmailResult } from '@mailer/operations';
import { RATE_LIMIT_HEADERS, rateLimitHeaderValues } from '../../http/rate-limit-headers';
import type { ResponseHeader } from '../../http/route';
import { sendJson } from '../../http/respond';

/** What every accepting answer carries, the adapters' too: pacing headers, the replay marker, and the acceptance metrics. */
export function markAccepted(res: Response, deps: ApiDependencies, result: AcceptEmailResult, drafts: EmailRequest[]): void {
  res.set(rateLimitHeaderValues(result.rateLimit));
  if (result.replayed) res.set('Idempotent-Replayed', 'true');
  else {
    deps.metrics.emailsAccepted.inc(drafts.length);
    deps.metrics.recipientsAccepted.inc(drafts.reduce((sum, d) => sum + d.recipients.recipients.length, 0));
  }
}

/** The 202 of POST /v1/emails and /v1/emails/batch. */
export function sendAccepted(res: Response, deps: ApiDependencies, result: AcceptEmailResult, drafts: EmailRequest[]): void {
  markAccepted(res, deps, result, drafts);
  sendJson(res, 202, result.response);
}

/** The ids of the accepted messages, in request order, whether the answer is new or replayed. */
export const acceptedIds = (result: AcceptEmailResult): string[] => {
  const response = result.response as { id?: string; data?: { id: string }[] };
  return response.data ? response.data.map((item) => item.id) : [response.id!];
};

/** What POST /v1/emails and /v1/emails/batch can refuse beyond their body, and the refusals that carry the pacing headers. */
export const INTAKE_ERRORS: ErrorCode[] = [
  'idempotency_key_required',
  'idempotency_conflict',
  'message_too_large',
  'template_variable_missing',
  'sender_not_allowed',
  'sending_paused',
  'plan_limit_exceeded',
  'rate_limit_exceeded',
  'active_delivery_limit_exceeded',
];
export const INTAKE_ERROR_HEADERS: Partial<Record<ErrorCode, ResponseHeader[]>> = {
  idempotency_conflict: RATE_LIMIT_HEADERS,
  sender_not_allowed: RATE_LIMIT_HEADERS,
  plan_limit_exceeded: RATE_LIMIT_HEADERS,
  rate_limit_exceeded: RATE_LIMIT_HEADERS,
  active_delivery_limit_exceeded: RATE_LIMIT_HEADERS,
};
