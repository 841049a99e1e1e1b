import {
  admissionStatements,
  claimedKeysFrom,
  claimIdempotencyKeys,
  idempotencyRecordsFrom,
  inTransaction,
  lockAccountIntake,
  NOTHING_SUPPRESSED,
  otherRequestsRecords,
  recentTestMessages,
  recentTestMessagesFrom,
  releaseIdempotencyKeys,
  sendingIdentitiesFrom,
  sendingIdentitiesStatement,
  suppressedAmong,
  suppressedFrom,
  usageFigures,
  usageFiguresFrom,
  usageReachedAt,
  usageReachedAtFrom,
  type AcceptedEmail,
  type Database,
  type EmailOwner,
  type UsageFigures,
} from '@mailer/db';
import {
  ACTIVE_LIMIT_RETRY_AFTER_SECONDS,
  addressKey,
  IDEMPOTENCY_TTL_MS,
  USAGE_WINDOWS,
  decideAdmission,
  newId,
  rateLimitHeaders,
  recordAdmission,
  testModeUsage,
  testUsageReachedAt,
  windowRetryAfter,
  type Admission,
  type RateLimitHeaders,
  type UsageState,
} from '@mailer/domain';
import type { DeliveryQueue } from '@mailer/queue';
import type { Logger } from '@mailer/logger';
import {
  judgeRequest,
  limitError,
  sendingPausedError,
  settledOutcome,
  toAcceptedEmail,
  type AcceptedResponse,
  type IntakeOutcome,
  type IntakeRequest,
} from './intake-outcomes';

/** What intake writes to and reads the time from. */
export interface IntakeDependencies {
  db: Database;
  deliveryQueue: DeliveryQueue;
  logger: Logger;
  now: () => Date;
}

const WINDOW_SECONDS = USAGE_WINDOWS.map((w) => w.seconds);

function usageState(figures: UsageFigures): UsageState {
  return {
    windows: USAGE_WINDOWS.map((w, i) => ({ ...figures.windows[i]!, name: w.name, planField: w.planField, limit: w.limit(figures.plan) })),
    active: figures.active,
    maxActive: figures.plan.maxActive,
  };
}

interface Refusal {
  index: number;
  admission: Exclude<Admission, { admitted: true }>;
  /** The account's running total when the request was judged, plus its recipients. */
  totalWith: number;
  rateLimit: RateLimitHeaders;
}

/** A request as the checks before the plan left it. */
type Judged =
  | { kind: 'candidate'; request: IntakeRequest; messages: AcceptedEmail[]; response: AcceptedResponse }
  | { kind: 'settled'; request: IntakeRequest; outcome: IntakeOutcome; releasesKey: boolean };

/**
 * One transaction for requests of one account (see IntakeBatcher), in three round trips.
 * The first claims their Idempotency-Keys and reads their senders, the records of keys
 * already used and the suppressed recipients. The second takes the account's intake lock
 * (lock-order: no delivery's record waits on it) and reads its usage figures. A paused account's new requests are refused
 * (`sending_paused`; a replay still answers). Under that lock the requests are admitted in order
 * while they fit the plan (admitInOrder); the third writes what was admitted
 * (admissionStatements), gives back the keys of requests that created nothing and commits.
 * Outcomes are in request order.
 *
 * Test requests (docs/api-decisions.md, "Test mode") go the same way under the same lock but
 * for what they count: no suppressed recipients are looked up, a paused account still takes
 * them, and instead of the plan they are admitted against the account's test messages of the
 * last minute (testModeUsage), writing no usage.
 */
export async function runIntakeBatch(deps: IntakeDependencies, owner: EmailOwner, requests: IntakeRequest[]): Promise<IntakeOutcome[]> {
  const { accountId, test } = owner;
  const now = deps.now();
  const ids = requests.map((r) => r.drafts.map(() => newId('email')));
  const responses = requests.map((r, i): AcceptedResponse => {
    const items = ids[i]!.map((id) => ({ id, status: 'queued' as const, created_at: now.toISOString() }));
    return r.batch ? { data: items } : items[0]!;
  });
  // A request's record is known by its first message's id (otherRequestsRecords).
  // A request without a key claims nothing and is judged as a fresh claim; an unrendered one only reads its key's record.
  const claims = requests.flatMap((r, i) =>
    r.idempotencyKey === null || r.unrendered ? [] : [{ key: r.idempotencyKey, requestHash: r.fingerprint, emailId: ids[i]![0]!, response: { ...responses[i]! } }],
  );
  const keys = requests.flatMap((r) => (r.idempotencyKey === null ? [] : [r.idempotencyKey]));
  const drafts = requests.flatMap((r) => r.drafts);
  return inTransaction(deps.db, async (tx) => {
    const recipientKeys = [...new Set(drafts.flatMap((d) => d.recipients.recipients.map((recipient) => addressKey(recipient.address))))];
    const first = await tx.send({
      claimed: claimIdempotencyKeys(tx, owner, claims, now, IDEMPOTENCY_TTL_MS),
      identities: sendingIdentitiesStatement(tx.sql, accountId, [...new Set(drafts.map((d) => d.from.mailbox.key))]),
      records: otherRequestsRecords(tx, owner, keys, claims.map((c) => c.emailId), now),
      suppressed: test ? [] : [suppressedAmong(tx, accountId, recipientKeys)],
    });
    const suppressed = first.suppressed[0] ? suppressedFrom(first.suppressed[0]) : NOTHING_SUPPRESSED;
    const claimedKeys = claimedKeysFrom(first.claimed);
    const identityByKey = new Map(sendingIdentitiesFrom(first.identities).map((s) => [s.emailKey, s]));
    const recordByKey = idempotencyRecordsFrom(first.records);

    const second = await tx.send({
      lock: lockAccountIntake(tx, accountId),
      usage: usageFigures(tx, accountId, now, WINDOW_SECONDS),
      recentTest: test ? [recentTestMessages(tx, accountId, new Date(now.getTime() - 60_000))] : [],
    });
    const figures = usageFiguresFrom(second.usage, WINDOW_SECONDS);
    const recentTest = second.recentTest[0] ? recentTestMessagesFrom(second.recentTest[0]) : [];
    const initial = test ? testModeUsage(recentTest) : usageState(figures);
    const judged = requests.map((request, i): Judged => {
      const verdict = judgeRequest(
        request,
        request.idempotencyKey === null || claimedKeys.has(request.idempotencyKey),
        request.idempotencyKey === null ? undefined : recordByKey.get(request.idempotencyKey),
        (d) => identityByKey.get(d.from.mailbox.key),
        test,
      );
      if (verdict.kind !== 'candidate') {
        return { kind: 'settled', request, outcome: settledOutcome(verdict, rateLimitHeaders(initial, now)), releasesKey: verdict.kind === 'sender_not_allowed' };
      }
      const paused = request.drafts.find((d) => figures.pausedStreams.has(d.type));
      if (paused && !test) return { kind: 'settled', request, outcome: { kind: 'refused', error: sendingPausedError(paused.type) }, releasesKey: true };
      const messages = request.drafts.map((draft, j) => toAcceptedEmail(accountId, ids[i]![j]!, draft, verdict.identities[j]!, suppressed, now, test));
      return { kind: 'candidate', request, messages, response: responses[i]! };
    });
    // Usage instants never go back, so that recipient_usage.cumulative grows with accepted_at.
    const usageAt = figures.lastAcceptedAt && figures.lastAcceptedAt > now ? figures.lastAcceptedAt : now;
    const decided = admitInOrder(judged, initial, figures.total, usageAt, now);

    const windows = exceededWindows(decided.refusals);
    const third = await tx.commit({
      admission: admissionStatements(tx, { accountId, now, usageAt, admitted: decided.admitted, totalBefore: figures.total }),
      released: decided.releasedKeys.length > 0 ? [releaseIdempotencyKeys(tx, owner, decided.releasedKeys)] : [],
      reachedAt: windows.length > 0 && !test ? [usageReachedAt(tx, accountId, windows.map(({ r, e }) => r.totalWith - e.window.limit))] : [],
    });
    const reachedAt = test
      ? windows.map(({ e }) => testUsageReachedAt(recentTest, e.mustLeave))
      : third.reachedAt[0]
        ? usageReachedAtFrom(third.reachedAt[0])
        : [];
    return decided.outcomes.map((outcome, index): IntakeOutcome => {
      if (outcome) return outcome;
      const refusal = decided.refusals.find((r) => r.index === index)!;
      return { kind: 'refused', error: limitError(refusal.admission, refusal.rateLimit, () => retryAfterSeconds(refusal, windows, reachedAt, now)) };
    });
  }, { genericPlans: true });
}

interface Decided {
  /** Each request's outcome, but for the plan's refusals, whose Retry-After the write finds. */
  outcomes: (IntakeOutcome | undefined)[];
  admitted: AcceptedEmail[];
  refusals: Refusal[];
  /** Keys of requests that created nothing: a later request may use them. */
  releasedKeys: string[];
}

/**
 * The plan's decision, in arrival order: each candidate is admitted while the account's
 * windows and active deliveries have room for its recipients (a batch request's messages are
 * judged together and admitted or refused whole). Suppressed recipients are never attempted:
 * they count no usage and no active delivery.
 */
function admitInOrder(judged: readonly Judged[], initial: UsageState, totalBefore: number, usageAt: Date, now: Date): Decided {
  const decided: Decided = { outcomes: [], admitted: [], refusals: [], releasedKeys: [] };
  let state = initial;
  let total = totalBefore;
  judged.forEach((j, index) => {
    if (j.kind === 'settled') {
      decided.outcomes[index] = j.outcome;
      if (j.releasesKey && j.request.idempotencyKey !== null) decided.releasedKeys.push(j.request.idempotencyKey);
      return;
    }
    const attempted = j.messages.map((e) => e.recipients.filter((r) => !r.suppressed).length);
    const recipients = attempted.reduce((sum, n) => sum + n, 0);
    const admission = decideAdmission(state, recipients);
    if (!admission.admitted) {
      decided.outcomes[index] = undefined;
      if (j.request.idempotencyKey !== null) decided.releasedKeys.push(j.request.idempotencyKey);
      decided.refusals.push({ index, admission, totalWith: total + recipients, rateLimit: rateLimitHeaders(state, now) });
      return;
    }
    state = recordAdmission(state, recipients, usageAt);
    total += recipients;
    decided.admitted.push(...j.messages);
    decided.outcomes[index] = {
      kind: 'accepted',
      response: j.response,
      rateLimit: rateLimitHeaders(state, now),
      jobs: j.messages.filter((_, k) => attempted[k]! > 0).map((e) => ({ emailId: e.id, dueAt: e.dueAt, accountId: e.accountId })),
    };
  });
  return decided;
}

type ExceededWindow = { r: Refusal; e: Extract<Refusal['admission'], { code: 'rate_limit_exceeded' }>['exceeded'][number] };

/** Each window a refusal exceeded; the running total that must leave it is found by when usage reached it. */
const exceededWindows = (refusals: Refusal[]): ExceededWindow[] =>
  refusals.flatMap((r) => (r.admission.code === 'rate_limit_exceeded' ? r.admission.exceeded.map((e) => ({ r, e })) : []));

/**
 * Seconds until a refused request would fit: for a window, until the usage that must
 * leave it has left (found by the running total it brought the account to); for active
 * deliveries, a fixed pause.
 */
function retryAfterSeconds(refusal: Refusal, windows: ExceededWindow[], reachedAt: (Date | null)[], now: Date): number {
  if (refusal.admission.code === 'active_delivery_limit_exceeded') return ACTIVE_LIMIT_RETRY_AFTER_SECONDS;
  const waits = windows.map(({ r, e }, i) => (r === refusal ? windowRetryAfter(e, reachedAt[i] ?? null, now) : 0));
  return Math.max(...waits);
}
