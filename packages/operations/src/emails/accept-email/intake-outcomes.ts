import type { AcceptedEmail, IdempotencyRecord, SendingIdentity, SuppressedRecipient } from '@mailer/db';
import { addressKey, AppError, firstDueAt, isDomainReady, newId, sendingIdentityProblem, type Admission, type EmailDraft, type EmailType, type RateLimitHeaders } from '@mailer/domain';
import { trackedLinks } from '@mailer/message';
import type { DueMessage } from '@mailer/queue';

/**
 * One request under one Idempotency-Key: a message (POST /v1/emails) or a batch of them
 * (POST /v1/emails/batch), admitted or refused as a whole.
 */
export interface IntakeRequest {
  /** Null: a request without a key (an adapter's, docs/api-decisions.md "Resend and Postmark adapters"), never deduplicated. */
  idempotencyKey: string | null;
  /** requestFingerprint of the parsed body. */
  fingerprint: string;
  drafts: EmailDraft[];
  /** A batch answers `{data: [...]}` and names its items by index in error details. */
  batch: boolean;
  /**
   * Set, with no drafts, for a keyed request whose templates no longer render (docs/api-decisions.md,
   * "Templates"): it claims nothing and can only replay its key's live record of the same request;
   * anything else is refused with this error, as the request was.
   */
  unrendered?: AppError;
}

export interface AcceptedEmailResponse {
  id: string;
  status: 'queued';
  created_at: string;
}

export type AcceptedResponse = AcceptedEmailResponse | { data: AcceptedEmailResponse[] };

export type IntakeOutcome =
  /** `jobs`: one per message with a delivery owed an attempt (none for a message whose every recipient is suppressed). */
  | { kind: 'accepted'; response: AcceptedResponse; rateLimit: RateLimitHeaders; jobs: DueMessage[] }
  | { kind: 'replayed'; response: Record<string, unknown>; rateLimit: RateLimitHeaders }
  /** Carries the account's pacing figures (and, for the plan's refusals, when to retry). */
  | { kind: 'refused'; error: AppError }
  /** The key's record vanished between claim and read (released by a refused request): try again. */
  | { kind: 'retry' };

/** A new request for a stream of the account whose sending is paused (docs/api-decisions.md, "Reputation", "Streams"). */
export const sendingPausedError = (stream: EmailType): AppError =>
  new AppError(
    'sending_paused',
    `The account's ${stream} sending is paused after its bounce or complaint rates, or by an operator; it takes no new ${stream} mail until resumed.`,
  );

/** What a request is before the plan is consulted. */
export type Verdict =
  /** `identities[i]` sends `drafts[i]`. */
  | { kind: 'candidate'; identities: SendingIdentity[] }
  | { kind: 'replay'; response: Record<string, unknown> }
  | { kind: 'conflict' }
  | { kind: 'sender_not_allowed'; problems: { path: string; message: string }[] }
  | { kind: 'unrendered'; error: AppError }
  | { kind: 'retry' };

/** Where a detail about one message of a request points: `from`, or `[3].from` in a batch. */
export const itemPath = (request: Pick<IntakeRequest, 'batch'>, index: number, path: string) => (request.batch ? `[${index}].${path}` : path);

/**
 * A request whose key this transaction claimed goes on to the sender check (every message
 * of a batch must pass it); one whose key is live replays (same request) or conflicts
 * (another request). A test request's sender must be active, its domain ready or not
 * (docs/api-decisions.md, "Test mode"). An unrendered request replays or keeps its error.
 */
export function judgeRequest(
  request: IntakeRequest,
  claimed: boolean,
  record: IdempotencyRecord | undefined,
  identityOf: (draft: EmailDraft) => SendingIdentity | undefined,
  test: boolean,
): Verdict {
  if (request.unrendered) return record?.requestHash === request.fingerprint ? { kind: 'replay', response: record.response } : { kind: 'unrendered', error: request.unrendered };
  if (!claimed) {
    if (!record) return { kind: 'retry' };
    return record.requestHash === request.fingerprint ? { kind: 'replay', response: record.response } : { kind: 'conflict' };
  }
  const identities: SendingIdentity[] = [];
  const problems: { path: string; message: string }[] = [];
  request.drafts.forEach((draft, index) => {
    const identity = identityOf(draft);
    const problem = sendingIdentityProblem(identity && { configuredState: identity.configuredState, domainReady: test || isDomainReady(identity) });
    if (problem || !identity) problems.push({ path: itemPath(request, index, 'from'), message: problem ?? 'no active sender' });
    else identities.push(identity);
  });
  return problems.length > 0 ? { kind: 'sender_not_allowed', problems } : { kind: 'candidate', identities };
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
          details: verdict.problems,
          rateLimit,
        }),
      };
    case 'unrendered':
      return { kind: 'refused', error: verdict.error };
    case 'retry':
      return { kind: 'retry' };
  }
}

/**
 * The plan's refusal: 422 for a request no wait would make fit, else 429 with the pacing
 * figures as they stood when it was judged.
 */
export function limitError(admission: Exclude<Admission, { admitted: true }>, rateLimit: RateLimitHeaders, retryAfter: () => number): AppError {
  if (admission.code === 'plan_limit_exceeded') {
    return new AppError('plan_limit_exceeded', "The message's unique recipients alone exceed the account's plan; split it into smaller requests.", {
      rateLimit,
      details: admission.windows.map((w) => ({
        path: `plan.${w.planField}`,
        message: `more unique recipients than the ${w.limit} the plan allows per ${w.name}`,
      })),
    });
  }
  const pacing = { rateLimit, retryAfterSeconds: retryAfter() };
  if (admission.code === 'active_delivery_limit_exceeded') {
    return new AppError('active_delivery_limit_exceeded', "The account's active deliveries (queued, sending or deferred) would exceed its plan.", pacing);
  }
  return new AppError('rate_limit_exceeded', "The message's recipients would exceed the account's plan.", {
    ...pacing,
    details: admission.exceeded.map((e) => ({
      path: '(recipients)',
      message: `${e.window.used} of ${e.window.limit} recipient-emails per ${e.window.name} are used`,
    })),
  });
}

/**
 * The rows of an admitted message: From as the sender is configured, display name the
 * request's else the sender's; recipients the account suppresses for the message's stream are marked.
 */
export function toAcceptedEmail(
  accountId: string,
  id: string,
  draft: EmailDraft,
  identity: SendingIdentity,
  suppressed: SuppressedRecipient,
  now: Date,
  test: boolean,
): AcceptedEmail {
  return {
    id,
    accountId,
    senderId: identity.senderId,
    domainId: identity.domainId,
    fromEmail: identity.email,
    fromName: draft.from.displayName ?? identity.displayName,
    type: draft.type,
    unsubscribe: draft.unsubscribe,
    ...messageTracking(draft, identity, test),
    subject: draft.subject,
    to: draft.recipients.to,
    cc: draft.recipients.cc,
    bccCount: draft.recipients.bccCount,
    text: draft.text,
    html: draft.html,
    messageIdHeader: `<${id}@${identity.domainName}>`,
    replyTo: draft.replyTo,
    displayNames: draft.displayNames,
    headers: draft.headers,
    tags: draft.tags,
    scheduledAt: draft.scheduledAt,
    template: draft.template ?? null,
    test,
    dueAt: firstDueAt(draft.scheduledAt, now),
    recipients: draft.recipients.recipients.map((r) => ({ id: newId('delivery'), ...r, suppressed: suppressed(addressKey(r.address), draft.type) })),
    attachments: draft.attachments,
  };
}

/**
 * Opens and clicks of an accepted message (docs/api-decisions.md, "Opens and clicks"): its own
 * `track`, else its domain's now; a test message tracks nothing. With clicks, the links of its
 * HTML part are kept with it, so that a click token's index names its URL once the body is gone.
 */
function messageTracking(draft: EmailDraft, identity: SendingIdentity, test: boolean): Pick<AcceptedEmail, 'track' | 'trackedLinks'> {
  const opens = !test && (draft.track.opens ?? identity.tracking.opens);
  const clicks = !test && draft.html !== null && (draft.track.clicks ?? identity.tracking.clicks);
  return { track: { opens, clicks }, trackedLinks: clicks ? trackedLinks(draft.html!) : null };
}
