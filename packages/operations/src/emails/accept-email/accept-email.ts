import { AppError, isTemplated, isValidIdempotencyKey, requestFingerprint, scheduleProblem, validationError, type EmailRequest, type RateLimitHeaders } from '@mailer/domain';
import type { Database, EmailOwner } from '@mailer/db';
import type { IntakeBatcher } from './intake-batcher';
import { itemPath, type AcceptedResponse, type IntakeRequest } from './intake-outcomes';
import { assertMessageSize } from './message-size';
import { renderTemplatedDrafts } from './render-templated-drafts';

/** 400 idempotency_key_required unless the header holds 1..255 characters. */
export function requireIdempotencyKey(header: string | undefined): string {
  if (!isValidIdempotencyKey(header)) {
    throw new AppError('idempotency_key_required', 'POST /v1/emails and /v1/emails/batch need an Idempotency-Key header of 1 to 255 characters.');
  }
  return header;
}

/** The adapters' optional key (docs/api-decisions.md, "Resend and Postmark adapters"): none means not deduplicated; a present one keeps the rule. */
export function optionalIdempotencyKey(header: string | undefined): string | null {
  return header === undefined ? null : requireIdempotencyKey(header);
}

/** What accepting a message reads and writes. */
export interface AcceptEmailDependencies {
  db: Database;
  intake: IntakeBatcher;
  now: () => Date;
}

export interface AcceptEmailInput {
  /** The account, and whether the request came with its test key (docs/api-decisions.md, "Test mode"). */
  owner: EmailOwner;
  /** Null: not deduplicated (the adapters, where the key is optional as the providers make it). */
  idempotencyKey: string | null;
  /** The request body as parsed JSON: what "the same request" is judged on. */
  body: unknown;
  /** One message, or the messages of a batch in order; each with its content or with a template to render it from. */
  drafts: EmailRequest[];
  batch: boolean;
}

export interface AcceptEmailResult {
  response: AcceptedResponse | Record<string, unknown>;
  replayed: boolean;
  rateLimit: RateLimitHeaders;
}

/**
 * Accepts validated messages for delivery (docs/api-decisions.md, "Emails"): templated ones
 * rendered (docs/api-decisions.md, "Templates"), the schedule and size checks of each, then idempotency, sender policy and plan limits in one
 * transaction that stores them durably before the 202 (see IntakeBatcher and
 * runIntakeBatch). A batch is one request: one key, all of its messages or none.
 * Refusals are thrown as AppErrors carrying their headers.
 */
export async function acceptEmail(deps: AcceptEmailDependencies, input: AcceptEmailInput): Promise<AcceptEmailResult> {
  const now = deps.now();
  const scheduling = input.drafts.flatMap((draft, index) => {
    const problem = scheduleProblem(draft.scheduledAt, now);
    return problem ? [{ path: itemPath(input, index, 'scheduled_at'), message: problem }] : [];
  });
  if (scheduling.length > 0) throw validationError(scheduling);
  const outcome = await deps.intake.submit(input.owner, {
    idempotencyKey: input.idempotencyKey,
    fingerprint: requestFingerprint(input.body),
    batch: input.batch,
    ...(await preparedDrafts(deps, input)),
  });
  switch (outcome.kind) {
    case 'accepted':
      return { response: outcome.response, replayed: false, rateLimit: outcome.rateLimit };
    case 'replayed':
      return { response: outcome.response, replayed: true, rateLimit: outcome.rateLimit };
    case 'refused':
      throw outcome.error;
  }
}

/**
 * The drafts rendered and held to the size limit. A keyed templated request that fails here
 * goes on without drafts, as `unrendered`: the template may have been deleted or changed since
 * the key's first request, whose replay must still answer (docs/api-decisions.md, "Templates").
 */
async function preparedDrafts(deps: AcceptEmailDependencies, input: AcceptEmailInput): Promise<Pick<IntakeRequest, 'drafts' | 'unrendered'>> {
  try {
    const drafts = await renderTemplatedDrafts(deps.db, input.owner.accountId, input.drafts, (index, field) => itemPath(input, index, field));
    for (const [index, draft] of drafts.entries()) await assertMessageSize(deps, input.owner.accountId, draft, input.batch ? `[${index}]` : '(message)');
    return { drafts };
  } catch (error) {
    if (!(error instanceof AppError) || input.idempotencyKey === null || !input.drafts.some(isTemplated)) throw error;
    return { drafts: [], unrendered: error };
  }
}
