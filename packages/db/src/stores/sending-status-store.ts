import { reputationWindowStart, type ReputationThresholds, type ReputationWindow, type SendingStatus, type SendingVerdict } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import { webhookEventsOutbox } from './webhook-outbox-store';

/** An account's sending status with its plan's thresholds and its counts over the window (docs/api-decisions.md, "Reputation"). */
export interface SendingState {
  accountId: string;
  status: SendingStatus;
  reason: string | null;
  since: Date;
  window: ReputationWindow;
  thresholds: ReputationThresholds;
}

/** The state's columns for accounts `a` joined to their plans `p`, with the window's sums (`w`, see windowJoin). */
const stateColumns = (db: Queryable) => db`
  a.id, a.sending_status, a.sending_reason, a.sending_since,
  p.reputation_min_volume, p.review_bounce_rate, p.review_complaint_rate, p.pause_bounce_rate, p.pause_complaint_rate,
  coalesce(w.terminal, 0) as terminal, coalesce(w.accepted, 0) as accepted,
  coalesce(w.hard_bounces, 0) as hard_bounces, coalesce(w.complaints, 0) as complaints`;

/** At most 24 rows per account: its primary key's range from the window's first hour. */
const windowJoin = (db: Queryable, now: Date) => db`
  left join lateral (
    select sum(h.terminal) as terminal, sum(h.accepted) as accepted, sum(h.hard_bounces) as hard_bounces, sum(h.complaints) as complaints
      from account_reputation_hours h
     where h.account_id = a.id and h.hour >= ${reputationWindowStart(now)}) w on true`;

// Sums are bigints and rates numerics, which the driver hands over as strings.
const toSendingState = (r: Row): SendingState => ({
  accountId: r.id,
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

export async function findSendingState(db: Queryable, accountId: string, now: Date): Promise<SendingState | undefined> {
  const [row] = await db`
    select ${stateColumns(db)} from accounts a join plans p on p.id = a.plan_id ${windowJoin(db, now)}
     where a.id = ${accountId}`;
  return row && toSendingState(row);
}

/**
 * The accounts a reputation evaluation looks at: those with counts in the window and those
 * under review (whose counts may have left it). Counts older than the window are deleted
 * first: nothing reads them any more.
 */
export async function sendingStatesToEvaluate(db: Database, now: Date): Promise<SendingState[]> {
  const start = reputationWindowStart(now);
  await db`delete from account_reputation_hours where hour < ${start}`;
  const rows = await db`
    select ${stateColumns(db)} from accounts a join plans p on p.id = a.plan_id ${windowJoin(db, now)}
     where a.sending_status = 'under_review' or a.id in (select distinct account_id from account_reputation_hours)`;
  return rows.map(toSendingState);
}

/** Every account's status, for /metrics. */
export async function sendingStatuses(db: Queryable): Promise<{ accountId: string; status: SendingStatus }[]> {
  const rows = await db`select id, sending_status from accounts order by id`;
  return rows.map((r) => ({ accountId: r.id as string, status: r.sending_status as SendingStatus }));
}

export interface SendingStatusChange {
  /** Decides on the state read under the account row's lock; undefined leaves the account as it is. */
  decide(state: SendingState): (SendingVerdict & { freshWindow: boolean }) | undefined;
  /** The `account.sending_status_changed` event's data, from the states before and after. */
  event(before: SendingState, after: SendingState): unknown;
}

/**
 * Changes an account's sending status in one transaction (docs/api-decisions.md, "Reputation"):
 * the account row is locked and its state read, `decide` judges it, and a change is written
 * with its `account.sending_status_changed` webhook event; `freshWindow` deletes the
 * account's counts (a resume starts the window afresh). The reputation rows are written by
 * the transition writer after the senders (lock-order level 3a), which never locks an
 * account row: taking the account row first cannot close a cycle. Resolves with the states
 * before and after a change, or undefined when there was none (or no such account).
 */
export async function changeSendingStatus(
  db: Database,
  accountId: string,
  now: Date,
  change: SendingStatusChange,
): Promise<{ before: SendingState; after: SendingState } | undefined> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx.sql`
      select ${stateColumns(tx.sql)} from accounts a join plans p on p.id = a.plan_id ${windowJoin(tx.sql, now)}
       where a.id = ${accountId}
         for no key update of a`;
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
      tx.sql`update accounts set sending_status = ${after.status}, sending_reason = ${after.reason}, sending_since = ${now} where id = ${accountId}`,
      ...(verdict.freshWindow ? [tx.sql`delete from account_reputation_hours where account_id = ${accountId}`] : []),
      webhookEventsOutbox(tx, [{ accountId, type: 'account.sending_status_changed', data: change.event(before, after), at: now }]),
    );
    return { before, after };
  });
}
