import type { AppError, ErrorCode } from '@mailer/domain';

/** An SMTP reply as smtp-server sends it: `responseCode`, then the text (opening with its enhanced status code). */
export type SmtpReply = Error & { responseCode: number };

export const smtpReply = (code: number, enhanced: string, text: string): SmtpReply =>
  Object.assign(new Error(`${enhanced} ${text}`), { responseCode: code });

/**
 * The one table from the contract's error codes to submission replies (docs/api-decisions.md,
 * "SMTP submission"). Refusals of the message are permanent (5xx) unless waiting can help:
 * an exhausted plan window or the database away are 4xx, so the client's queue retries.
 * Codes that intake never raises over SMTP are absent and fall back to 451 4.3.0.
 */
const REPLIES: Partial<Record<ErrorCode, { code: number; enhanced: string }>> = {
  validation_error: { code: 550, enhanced: '5.6.0' },
  template_variable_missing: { code: 550, enhanced: '5.6.0' },
  message_too_large: { code: 552, enhanced: '5.3.4' },
  sender_not_allowed: { code: 550, enhanced: '5.7.1' },
  // A paused account (docs/api-decisions.md, "Reputation"): permanent until an operator resumes it.
  sending_paused: { code: 550, enhanced: '5.7.1' },
  idempotency_conflict: { code: 550, enhanced: '5.5.0' },
  // More unique recipients than a plan window allows at all (docs/api-decisions.md, "Account view and plan limits"): no retry fits.
  plan_limit_exceeded: { code: 550, enhanced: '5.5.3' },
  rate_limit_exceeded: { code: 452, enhanced: '4.5.3' },
  active_delivery_limit_exceeded: { code: 452, enhanced: '4.5.3' },
  service_unavailable: { code: 451, enhanced: '4.3.0' },
};

const TEMPORARY_FAILURE = { code: 451, enhanced: '4.3.0' };

/**
 * `<code> <enhanced> <contract code>: <what to fix or when to retry>`. The text names the first
 * problem only (a reply is one line) and never quotes the message content.
 */
export function replyForError(error: AppError): SmtpReply {
  const reply = REPLIES[error.code] ?? TEMPORARY_FAILURE;
  const first = error.details?.[0];
  let text = first ? `${first.path} ${first.message}` : error.message;
  if (error.retryAfterSeconds !== undefined) text = `${text}; try again in ${error.retryAfterSeconds} seconds`;
  return smtpReply(reply.code, reply.enhanced, `${error.code}: ${text}`);
}

/** A failure that is not one of ours (the database away, a bug): temporary, as unknown errors are. */
export const temporaryFailure = (): SmtpReply => smtpReply(TEMPORARY_FAILURE.code, TEMPORARY_FAILURE.enhanced, 'Temporary failure, try again later');
