import type { AcceptedEmail, IdempotencyRecord, SendingIdentity } from '@mailer/db';
import { addressKey, AppError, isDomainReady, newId, sendingIdentityProblem, type Admission, type EmailDraft, type RateLimitHeaders } from '@mailer/domain';
import type { DueMessage } from '@mailer/queue';

export interface IntakeRequest {
  idempotencyKey: string;
  /** requestFingerprint of the parsed body. */
  fingerprint: string;
  draft: EmailDraft;
}

export interface AcceptedResponse {
  id: string;
  status: 'queued';
  created_at: string;
}

export type IntakeOutcome =
  /** `job` is absent when no delivery is owed an attempt (every recipient suppressed). */
  | { kind: 'accepted'; response: AcceptedResponse; rateLimit: RateLimitHeaders; job?: DueMessage }
  | { kind: 'replayed'; response: Record<string, unknown>; rateLimit: RateLimitHeaders }
  /** Carries the account's pacing figures (and, for the plan's refusals, when to retry). */
  | { kind: 'refused'; error: AppError }
  /** The key's record vanished between claim and read (released by a refused request): try again. */
  | { kind: 'retry' };

/** What a request is before the plan is consulted. */
export type Verdict =
  | { kind: 'candidate'; identity: SendingIdentity }
  | { kind: 'replay'; response: Record<string, unknown> }
  | { kind: 'conflict' }
  | { kind: 'sender_not_allowed'; problem: string }
  | { kind: 'retry' };

/**
 * A request whose key this transaction claimed goes on to the sender check; one whose key
 * is live replays (same request) or conflicts (another request).
 */
export function judgeRequest(
  request: IntakeRequest,
  claimed: boolean,
  record: IdempotencyRecord | undefined,
  identity: SendingIdentity | undefined,
): Verdict {
  if (!claimed) {
    if (!record) return { kind: 'retry' };
    return record.requestHash === request.fingerprint ? { kind: 'replay', response: record.response } : { kind: 'conflict' };
  }
  const problem = sendingIdentityProblem(identity && { configuredState: identity.configuredState, domainReady: isDomainReady(identity) });
  if (problem || !identity) return { kind: 'sender_not_allowed', problem: problem ?? 'no active sender' };
  return { kind: 'candidate', identity };
}

/** The outcome of a request that never reached the plan, with the account's current RateLimit-* figures. */
export function settledOutcome(verdict: Exclude<Verdict, { kind: 'candidate' }>, rateLimit: RateLimitHeaders): IntakeOutcome {
  switch (verdict.kind) {
    case 'replay':
      return { kind: 'replayed', response: verdict.response, rateLimit };
    case 'conflict':
      return {
        kind: 'refused',
        error: new AppError('idempotency_conflict', 'This Idempotency-Key was used with a different request in the last 24 hours.', { rateLimit }),
      };
    case 'sender_not_allowed':
      return {
        kind: 'refused',
        error: new AppError('sender_not_allowed', '`from` is not an active sender of a ready domain of this account.', {
          details: [{ path: 'from', message: verdict.problem }],
          rateLimit,
        }),
      };
    case 'retry':
      return { kind: 'retry' };
  }
}

/** 429 for a request the plan refused, with the pacing figures as they stood when it was judged. */
export function limitError(admission: Exclude<Admission, { admitted: true }>, rateLimit: RateLimitHeaders, retryAfter: number): AppError {
  const pacing = { rateLimit, retryAfterSeconds: retryAfter };
  if (admission.code === 'active_delivery_limit_exceeded') {
    return new AppError('active_delivery_limit_exceeded', "The account's active deliveries (queued, sending or deferred) would exceed its plan.", pacing);
  }
  return new AppError('rate_limit_exceeded', "The message's recipients would exceed the account's plan.", {
    ...pacing,
    details: admission.exceeded.map((e) => ({
      path: '(recipients)',
      message: e.neverFits
        ? `this message alone has more unique recipients than the ${e.window.name} window allows (${e.window.limit})`
        : `${e.window.used} of ${e.window.limit} recipient-emails per ${e.window.name} are used`,
    })),
  });
}

/**
 * The rows of an admitted message: From as the sender is configured, display name the
 * request's else the sender's; recipients the account suppresses are marked.
 */
export function toAcceptedEmail(accountId: string, id: string, draft: EmailDraft, identity: SendingIdentity, suppressed: ReadonlySet<string>): AcceptedEmail {
  return {
    id,
    accountId,
    senderId: identity.senderId,
    domainId: identity.domainId,
    fromEmail: identity.email,
    fromName: draft.from.displayName ?? identity.displayName,
    type: draft.type,
    subject: draft.subject,
    to: draft.recipients.to,
    cc: draft.recipients.cc,
    bccCount: draft.recipients.bccCount,
    text: draft.text,
    html: draft.html,
    messageIdHeader: `<${id}@${identity.domainName}>`,
    recipients: draft.recipients.recipients.map((r) => ({ id: newId('delivery'), ...r, suppressed: suppressed.has(addressKey(r.address)) })),
    attachments: draft.attachments,
  };
}
