import { reputationWindowStart, type EmailType, type ReputationThresholds, type ReputationWindow, type SendingStatus, type SendingVerdict } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import { webhookEventsOutbox } from './webhook-outbox-store';

/**
 * A stream's sending status with its account plan's thresholds and the stream's counts over the
 * window (docs/api-decisions.md, "Reputation", "Streams").
 */
export interface SendingState {
  accountId: string;
  stream: EmailType;
  status: SendingStatus;
  reason: string | null;
  since: Date;
  window: ReputationWindow;
  thresholds: ReputationThresholds;
}

/** The state's columns for streams `s` of accounts `a` joined to their plans `p`, with the window's sums (`w`, see windowJoin). */
const stateColumns = (db: Queryable) => db`
  s.account_id, s.stream, s.sending_status, s.sending_reason, s.sending_since,
  p.reputation_min_volume, p.review_bounce_rate, p.review_complaint_rate, p.pause_bounce_rate, p.pause_complaint_rate,
  coalesce(w.terminal, 0) as terminal, coalesce(w.accepted, 0) as accepted,
  coalesce(w.hard_bounces, 0) as hard_bounces, coalesce(w.complaints, 0) as complaints`;

/** The streams `s` with their accounts `a` and plans `p`. */
const streamsJoin = (db: Queryable) => db`account_streams s join accounts a on a.id = s.account_id join plans p on p.id = a.plan_id`;

/** At most 24 rows per stream: its primary key's range from the window's first hour. */
const windowJoin = (db: Queryable, now: Date) => db`
  left join lateral (
    select sum(h.terminal) as terminal, sum(h.accepted) as accepted, sum(h.hard_bounces) as hard_bounces, sum(h.complaints) as complaints
      from account_reputation_hours h
     where h.account_id = s.account_id and h.stream = s.stream and h.hour >= ${reputationWindowStart(now)}) w on true`;

// Sums are bigints and rates numerics, which the driver hands over as strings.
const toSendingState = (r: Row): SendingState => ({
  accountId: r.account_id,
  stream: r.stream,
  status: r.sending_status,
  reason: r.sending_reason,
  since: r.sending_since,
  window: { terminal: Number(r.terminal), accepted: Number(r.accepted), hardBounces: Number(r.hard_bounces), complaints: Number(r.complaints) },
  thresholds: {
    minVolume: r.reputation_min_volume,
    reviewBounceRate: Number(r.review_bounce_rate),
    reviewComplaintRate: Number(r.review_complaint_rate),
    pauseBounceRate: Number(r.pause_bounce_rate),
    pauseComplaintRate: Number(r.pause_complaint_rate),
  },
});

/** Each stream's state, in EMAIL_TYPES order by name; none for an unknown account. */
export async function findSendingStates(db: Queryable, accountId: string, now: Date): Promise<SendingState[]> {
  const rows = await db`
    select ${stateColumns(db)} from ${streamsJoin(db)} ${windowJoin(db, now)}
     where s.account_id = ${accountId} order by s.stream desc`;
  return rows.map(toSendingState);
}

/**
 * The streams a reputation evaluation looks at: those with counts in the window and those
 * under review (whose counts may have left it). Counts older than the window are deleted
 * first: nothing reads them any more.
 */
export async function sendingStatesToEvaluate(db: Database, now: Date): Promise<SendingState[]> {
  const start = reputationWindowStart(now);
  await db`delete from account_reputation_hours where hour < ${start}`;
  const rows = await db`
    select ${stateColumns(db)} from ${streamsJoin(db)} ${windowJoin(db, now)}
     where s.sending_status = 'under_review' or (s.account_id, s.stream) in (select distinct account_id, stream from account_reputation_hours)`;
  return rows.map(toSendingState);
}

/** Every stream's status, for /metrics. */
export async function sendingStatuses(db: Queryable): Promise<{ accountId: string; stream: EmailType; status: SendingStatus }[]> {
  const rows = await db`select account_id, stream, sending_status from account_streams order by account_id, stream`;
  return rows.map((r) => ({ accountId: r.account_id as string, stream: r.stream as EmailType, status: r.sending_status as SendingStatus }));
}

export interface SendingStatusChange {
  /** Decides on the state read under the account row's lock; undefined leaves the account as it is. */
  decide(state: SendingState): (SendingVerdict & { freshWindow: boolean }) | undefined;
  /** The `account.sending_status_changed` event's data, from the states before and after. */
  event(before: SendingState, after: SendingState): unknown;
}

/**
 * Changes a stream's sending status in one transaction (docs/api-decisions.md, "Reputation"):
 * the stream's row is locked and its state read, `decide` judges it, and a change is written
 * with its `account.sending_status_changed` webhook event; `freshWindow` deletes the
 * stream's counts (a resume starts the window afresh). The reputation rows are written by
 * the transition writer after the senders (lock-order level 3a), which never locks a stream
 * row: taking the stream row first cannot close a cycle. Resolves with the states before and
 * after a change, or undefined when there was none (or no such account).
 */
export async function changeSendingStatus(
  db: Database,
  accountId: string,
  stream: EmailType,
  now: Date,
  change: SendingStatusChange,
): Promise<{ before: SendingState; after: SendingState } | undefined> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx.sql`
      select ${stateColumns(tx.sql)} from ${streamsJoin(tx.sql)} ${windowJoin(tx.sql, now)}
       where s.account_id = ${accountId} and s.stream = ${stream}
         for no key update of s`;
    if (!row) return undefined;
    const before = toSendingState(row);
    const verdict = change.decide(before);
    if (!verdict) return undefined;
    const after: SendingState = {
      ...before,
      status: verdict.status,
      reason: verdict.reason,
      since: now,
      window: verdict.freshWindow ? { terminal: 0, accepted: 0, hardBounces: 0, complaints: 0 } : before.window,
    };
    await tx.commit(
      tx.sql`
        update account_streams set sending_status = ${after.status}, sending_reason = ${after.reason}, sending_since = ${now}
         where account_id = ${accountId} and stream = ${stream}`,
      ...(verdict.freshWindow ? [tx.sql`delete from account_reputation_hours where account_id = ${accountId} and stream = ${stream}`] : []),
      webhookEventsOutbox(tx, [{ accountId, type: 'account.sending_status_changed', data: change.event(before, after), at: now }]),
    );
    return { before, after };
  });
}
