import { AppError, isValidIdempotencyKey, requestFingerprint, type EmailDraft, type RateLimitHeaders } from '@mailer/domain';
import type { Database } from '@mailer/db';
import type { IntakeBatcher } from './intake-batcher';
import type { AcceptedResponse } from './intake-outcomes';
import { assertMessageSize } from './message-size';

/** 400 idempotency_key_required unless the header holds 1..255 characters. */
export function requireIdempotencyKey(header: string | undefined): string {
  if (!isValidIdempotencyKey(header)) {
    throw new AppError('idempotency_key_required', 'POST /v1/emails needs an Idempotency-Key header of 1 to 255 characters.');
  }
  return header;
}

/** What accepting a message reads and writes. */
export interface AcceptEmailDependencies {
  db: Database;
  intake: IntakeBatcher;
  now: () => Date;
}

export interface AcceptEmailInput {
  accountId: string;
  idempotencyKey: string;
  /** The request body as parsed JSON: what "the same request" is judged on. */
  body: unknown;
  draft: EmailDraft;
}

export interface AcceptEmailResult {
  response: AcceptedResponse | Record<string, unknown>;
  replayed: boolean;
  rateLimit: RateLimitHeaders;
}

/**
 * Accepts a validated message for delivery (docs/api-decisions.md, "Emails"): the size check, then
 * idempotency, sender policy and plan limits in one transaction that stores the message
 * durably before the 202 (see IntakeBatcher and runIntakeBatch). Refusals are thrown as
 * AppErrors carrying their headers.
 */
export async function acceptEmail(deps: AcceptEmailDependencies, input: AcceptEmailInput): Promise<AcceptEmailResult> {
  await assertMessageSize(deps, input.accountId, input.draft);
  const outcome = await deps.intake.submit(input.accountId, {
    idempotencyKey: input.idempotencyKey,
    fingerprint: requestFingerprint(input.body),
    draft: input.draft,
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
