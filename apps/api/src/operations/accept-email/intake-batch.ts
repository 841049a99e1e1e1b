import {
  admissionStatements,
  claimedKeysFrom,
  claimIdempotencyKeys,
  idempotencyRecordsFrom,
  inTransaction,
  lockAccountUsage,
  lockSenders,
  messageRowsStatements,
  otherRequestsRecords,
  releaseIdempotencyKeys,
  sendingIdentitiesFrom,
  sendingIdentitiesStatement,
  suppressedAmong,
  suppressedKeysFrom,
  usageFigures,
  usageFiguresFrom,
  usageReachedAt,
  usageReachedAtFrom,
  type AcceptedEmail,
  type Database,
  type Transaction,
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
  settledOutcome,
  toAcceptedEmail,
  type AcceptedResponse,
  type IntakeOutcome,
  type IntakeRequest,
  type Verdict,
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
    windows: USAGE_WINDOWS.map((w, i) => ({ ...figures.windows[i]!, name: w.name, limit: w.limit(figures.plan) })),
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

/**
 * One transaction for requests of one account (see IntakeBatcher), in three round trips.
 * The first claims their Idempotency-Keys and reads their senders and the records of keys
 * already used. The second writes the rows of the messages that passed those checks,
 * then locks the account's usage row and reads its figures. Under that lock the requests
 * are admitted in order while they fit the plan, and the third locks the senders, writes
 * what the plan's figures depend on (deliveries, usage, the running total), takes back
 * what it refused and commits. The account's batches take the lock in turn, so what it
 * covers is kept small: the decision, the third round trip and the commit. Outcomes are
 * in request order.
 */
export async function runIntakeBatch(deps: IntakeDependencies, accountId: string, requests: IntakeRequest[]): Promise<IntakeOutcome[]> {
  const now = deps.now();
  const ids = requests.map((r) => r.drafts.map(() => newId('email')));
  const responses = requests.map((r, i): AcceptedResponse => {
    const items = ids[i]!.map((id) => ({ id, status: 'queued' as const, created_at: now.toISOString() }));
    return r.batch ? { data: items } : items[0]!;
  });
  // A request's record is known by its first message's id (otherRequestsRecords).
  const claims = requests.map((r, i) => ({ key: r.idempotencyKey, requestHash: r.fingerprint, emailId: ids[i]![0]!, response: { ...responses[i]! } }));
  const keys = requests.map((r) => r.idempotencyKey);
  const drafts = requests.flatMap((r) => r.drafts);
  return inTransaction(deps.db, async (tx) => {
    const recipientKeys = [...new Set(drafts.flatMap((d) => d.recipients.recipients.map((recipient) => addressKey(recipient.address))))];
    const [claimed, identities, records, suppressions] = await tx.send(
      claimIdempotencyKeys(tx, accountId, claims, now, IDEMPOTENCY_TTL_MS),
      sendingIdentitiesStatement(tx.sql, accountId, [...new Set(drafts.map((d) => d.from.mailbox.key))]),
      otherRequestsRecords(tx, accountId, keys, claims.map((c) => c.emailId)),
      suppressedAmong(tx, accountId, recipientKeys),
    );
    const suppressed = suppressedKeysFrom(suppressions);
    const claimedKeys = claimedKeysFrom(claimed);
    const identityByKey = new Map(sendingIdentitiesFrom(identities).map((s) => [s.emailKey, s]));
    const recordByKey = idempotencyRecordsFrom(records);
    const verdicts: Verdict[] = requests.map((r) =>
      judgeRequest(r, claimedKeys.has(r.idempotencyKey), recordByKey.get(r.idempotencyKey), (d) => identityByKey.get(d.from.mailbox.key)),
    );
    const released = requests.filter((_, i) => verdicts[i]!.kind === 'sender_not_allowed').map((r) => r.idempotencyKey);
    const candidates = verdicts.map((verdict, i) =>
      verdict.kind === 'candidate'
        ? requests[i]!.drafts.map((draft, j) => toAcceptedEmail(accountId, ids[i]![j]!, draft, verdict.identities[j]!, suppressed, now))
        : undefined,
    );

    const written = candidates.filter((c) => c !== undefined).flat();
    const figures = await lockUsage(tx, accountId, now, messageRowsStatements(tx, accountId, now, written));
    // Usage instants never go back, so that recipient_usage.cumulative grows with accepted_at.
    const usageAt = figures.lastAcceptedAt && figures.lastAcceptedAt > now ? figures.lastAcceptedAt : now;
    const initial = usageState(figures);
    const outcomes: IntakeOutcome[] = [];
    const admitted: AcceptedEmail[] = [];
    const refusedEmailIds: string[] = [];
    const refusals: Refusal[] = [];
    let state = initial;
    let total = figures.total;
    verdicts.forEach((verdict, index) => {
      if (verdict.kind !== 'candidate') {
        outcomes[index] = settledOutcome(verdict, rateLimitHeaders(initial, now));
        return;
      }
      const messages = candidates[index]!;
      // Suppressed recipients are never attempted: they count no usage and no active delivery.
      const attempted = messages.map((e) => e.recipients.filter((r) => !r.suppressed).length);
      // A batch is admitted or refused whole: its messages' recipients are judged together.
      const recipients = attempted.reduce((sum, n) => sum + n, 0);
      const admission = decideAdmission(state, recipients);
      if (!admission.admitted) {
        released.push(requests[index]!.idempotencyKey);
        refusedEmailIds.push(...messages.map((e) => e.id));
        refusals.push({ index, admission, totalWith: total + recipients, rateLimit: rateLimitHeaders(state, now) });
        return;
      }
      state = recordAdmission(state, recipients, usageAt);
      total += recipients;
      admitted.push(...messages);
      outcomes[index] = {
        kind: 'accepted',
        response: responses[index]!,
        rateLimit: rateLimitHeaders(state, now),
        jobs: messages.filter((_, j) => attempted[j]! > 0).map((e) => ({ emailId: e.id, dueAt: e.dueAt })),
      };
    });

    const windows = exceededWindows(refusals);
    const results = await tx.commit(
      ...(admitted.length > 0 ? [lockSenders(tx, admitted.map((e) => e.senderId))] : []),
      ...admissionStatements(tx, { accountId, now, usageAt, admitted, refusedEmailIds, totalBefore: figures.total }),
      ...(released.length > 0 ? [releaseIdempotencyKeys(tx, accountId, released)] : []),
      ...(windows.length > 0 ? [usageReachedAt(tx, accountId, windows.map(({ r, e }) => r.totalWith - e.window.limit))] : []),
    );
    const reachedAt = windows.length > 0 ? usageReachedAtFrom(results.at(-1)!) : [];
    for (const refusal of refusals) {
      const retryAfter = retryAfterSeconds(refusal, windows, reachedAt, now);
      outcomes[refusal.index] = { kind: 'refused', error: limitError(refusal.admission, refusal.rateLimit, retryAfter) };
    }
    return outcomes;
  }, { genericPlans: true });
}

/**
 * Sends the message rows, then takes the account's usage lock (lock-order) and reads its
 * figures, in one round trip (the usage row exists from the account's creation).
 */
async function lockUsage(tx: Transaction, accountId: string, now: Date, messageRows: ReturnType<typeof messageRowsStatements>): Promise<UsageFigures> {
  const sent = await tx.send(
    ...messageRows,
    lockAccountUsage(tx, [accountId]),
    usageFigures(tx, accountId, now, WINDOW_SECONDS),
  );
  return usageFiguresFrom(sent.at(-1)!, WINDOW_SECONDS);
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
