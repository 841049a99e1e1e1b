import {
  acceptanceStatements,
  claimIdempotencyKeysStatement,
  claimedKeysFrom,
  ensureUsageRowStatement,
  idempotencyRecordsFrom,
  lockUsageStatement,
  otherRequestsRecordsStatement,
  queryInOneRoundTrip,
  sendingIdentitiesFrom,
  sendingIdentitiesStatement,
  usageFiguresFrom,
  usageReachedAtFrom,
  usageReachedAtStatement,
  withConnection,
  type AcceptedEmail,
  type PoolClient,
  type UsageFigures,
} from '@mailer/db';
import {
  ACTIVE_LIMIT_RETRY_AFTER_SECONDS,
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
import type { ApiDependencies } from '../../container';
import { iso } from '../../http/serialize';
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
 * One transaction for requests of one account (see IntakeBatcher), in two round trips.
 * The first claims their Idempotency-Keys, reads their senders and the records of keys
 * already used, then locks the account's usage row and reads its figures. Under that
 * lock the requests are admitted in order while they fit the plan, and the second round
 * trip writes the admitted messages, gives refused requests their keys back and commits.
 * The lock is taken last in the first round trip and held for the decision, the writes
 * and the commit only. Outcomes are in request order.
 */
export async function runIntakeBatch(deps: ApiDependencies, accountId: string, requests: IntakeRequest[]): Promise<IntakeOutcome[]> {
  const now = deps.now();
  const ids = requests.map(() => newId('email'));
  const responses = ids.map((id): AcceptedResponse => ({ id, status: 'queued', created_at: iso(now) }));
  const claims = requests.map((r, i) => ({ key: r.idempotencyKey, requestHash: r.fingerprint, emailId: ids[i]!, response: { ...responses[i]! } }));
  const keys = requests.map((r) => r.idempotencyKey);
  return withConnection(deps.database.pool, async (client) => {
    const [, claimed, identities, records, locked] = await queryInOneRoundTrip(client, [
      'begin',
      claimIdempotencyKeysStatement(accountId, claims, now, IDEMPOTENCY_TTL_MS),
      sendingIdentitiesStatement(accountId, [...new Set(requests.map((r) => r.draft.from.mailbox.key))]),
      otherRequestsRecordsStatement(accountId, keys, ids),
      lockUsageStatement(accountId, now, WINDOW_SECONDS),
    ]);
    const claimedKeys = claimedKeysFrom(claimed!);
    const identityByKey = new Map(sendingIdentitiesFrom(identities!).map((s) => [s.emailKey, s]));
    const recordByKey = idempotencyRecordsFrom(records!);
    const verdicts: Verdict[] = requests.map((r) =>
      judgeRequest(r, claimedKeys.has(r.idempotencyKey), recordByKey.get(r.idempotencyKey), identityByKey.get(r.draft.from.mailbox.key)),
    );
    const released = requests.filter((_, i) => verdicts[i]!.kind === 'sender_not_allowed').map((r) => r.idempotencyKey);

    const figures = usageFiguresFrom(locked!, WINDOW_SECONDS) ?? (await lockNewUsageRow(client, accountId, now));
    // Usage instants never go back, so that recipient_usage.cumulative grows with accepted_at.
    const usageAt = figures.lastAcceptedAt && figures.lastAcceptedAt > now ? figures.lastAcceptedAt : now;
    const initial = usageState(figures);
    const outcomes: IntakeOutcome[] = [];
    const accepted: AcceptedEmail[] = [];
    const refusals: Refusal[] = [];
    let state = initial;
    let total = figures.total;
    verdicts.forEach((verdict, index) => {
      if (verdict.kind !== 'candidate') {
        outcomes[index] = settledOutcome(verdict, rateLimitHeaders(initial, now));
        return;
      }
      const request = requests[index]!;
      const recipients = request.draft.recipients.recipients.length;
      const admission = decideAdmission(state, recipients);
      if (!admission.admitted) {
        released.push(request.idempotencyKey);
        refusals.push({ index, admission, totalWith: total + recipients, rateLimit: rateLimitHeaders(state, now) });
        return;
      }
      state = recordAdmission(state, recipients, usageAt);
      total += recipients;
      accepted.push(toAcceptedEmail(accountId, ids[index]!, request.draft, verdict.identity));
      outcomes[index] = { kind: 'accepted', response: responses[index]!, rateLimit: rateLimitHeaders(state, now), job: { emailId: ids[index]!, dueAt: now } };
    });

    const writes = acceptanceStatements({ accountId, now, usageAt, accepted, totalBefore: figures.total, releasedKeys: released });
    const windows = exceededWindows(refusals);
    const results = await queryInOneRoundTrip(client, [
      ...writes,
      ...(windows.length > 0 ? [usageReachedAtStatement(accountId, windows.map(({ r, e }) => r.totalWith - e.window.limit))] : []),
      'commit',
    ]);
    const reachedAt = windows.length > 0 ? usageReachedAtFrom(results[writes.length]!) : [];
    for (const refusal of refusals) {
      const retryAfter = retryAfterSeconds(refusal, windows, reachedAt, now);
      outcomes[refusal.index] = { kind: 'refused', error: limitError(refusal.admission, refusal.rateLimit, retryAfter) };
    }
    return outcomes;
  });
}

/** The account's first message: its usage row is created, then locked and read. */
async function lockNewUsageRow(client: PoolClient, accountId: string, now: Date): Promise<UsageFigures> {
  const [, locked] = await queryInOneRoundTrip(client, [ensureUsageRowStatement(accountId), lockUsageStatement(accountId, now, WINDOW_SECONDS)]);
  return usageFiguresFrom(locked!, WINDOW_SECONDS)!;
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
