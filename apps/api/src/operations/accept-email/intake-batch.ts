import {
  claimIdempotencyKeys,
  findIdempotencyRecords,
  findSendingIdentities,
  lockUsage,
  readUsage,
  usageReachedAt,
  writeAcceptances,
  type AcceptedEmail,
  type DbOrTx,
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
 * One transaction for requests of one account (see IntakeBatcher): claims their
 * Idempotency-Keys, checks their senders, then, under the account's usage lock, admits
 * them in order while they fit the plan and writes the admitted messages in one
 * statement. Refused requests give their keys back. The lock is taken after everything
 * that can run without it and held for the check, the writes and the commit. Outcomes
 * are in request order.
 */
export async function runIntakeBatch(deps: ApiDependencies, accountId: string, requests: IntakeRequest[]): Promise<IntakeOutcome[]> {
  const now = deps.now();
  const ids = requests.map(() => newId('email'));
  const responses = ids.map((id): AcceptedResponse => ({ id, status: 'queued', created_at: iso(now) }));
  // Read beside the transaction (it takes no lock), so that it costs no round trip of its own.
  const identitiesRead = findSendingIdentities(deps.db, accountId, [...new Set(requests.map((r) => r.draft.from.mailbox.key))]);
  identitiesRead.catch(() => undefined);
  return deps.db.transaction(async (tx) => {
    const claims = requests.map((r, i) => ({ key: r.idempotencyKey, requestHash: r.fingerprint, emailId: ids[i]!, response: { ...responses[i]! } }));
    const claimed = await claimIdempotencyKeys(tx, accountId, claims, now, IDEMPOTENCY_TTL_MS);
    const identities = new Map((await identitiesRead).map((s) => [s.emailKey, s]));
    const records = await findIdempotencyRecords(tx, accountId, requests.filter((r) => !claimed.has(r.idempotencyKey)).map((r) => r.idempotencyKey));
    const verdicts: Verdict[] = requests.map((r) =>
      judgeRequest(r, claimed.has(r.idempotencyKey), records.get(r.idempotencyKey), identities.get(r.draft.from.mailbox.key)),
    );
    const released = requests.filter((_, i) => verdicts[i]!.kind === 'sender_not_allowed').map((r) => r.idempotencyKey);

    const hasCandidates = verdicts.some((v) => v.kind === 'candidate');
    const figures = hasCandidates ? await lockUsage(tx, accountId, now, WINDOW_SECONDS) : await readUsage(tx, accountId, now, WINDOW_SECONDS);
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

    await writeAcceptances(tx, { accountId, now, usageAt, accepted, totalBefore: figures.total, releasedKeys: released });
    for (const [index, retryAfter] of await retryAfters(tx, accountId, refusals, now)) {
      const refusal = refusals.find((r) => r.index === index)!;
      outcomes[index] = { kind: 'refused', error: limitError(refusal.admission, refusal.rateLimit, retryAfter) };
    }
    return outcomes;
  });
}

/**
 * Seconds until each refused request would fit: for a window, until the usage that must
 * leave it has left (found by the running total it brought the account to); for active
 * deliveries, a fixed pause.
 */
async function retryAfters(tx: DbOrTx, accountId: string, refusals: Refusal[], now: Date): Promise<Map<number, number>> {
  const windows = refusals.flatMap((r) => (r.admission.code === 'rate_limit_exceeded' ? r.admission.exceeded.map((e) => ({ r, e })) : []));
  const reachedAt = await usageReachedAt(tx, accountId, windows.map(({ r, e }) => r.totalWith - e.window.limit));
  const result = new Map<number, number>();
  for (const refusal of refusals) {
    if (refusal.admission.code === 'active_delivery_limit_exceeded') {
      result.set(refusal.index, ACTIVE_LIMIT_RETRY_AFTER_SECONDS);
      continue;
    }
    const waits = windows.map(({ r, e }, i) => (r === refusal ? windowRetryAfter(e, reachedAt[i] ?? null, now) : 0));
    result.set(refusal.index, Math.max(...waits));
  }
  return result;
}
