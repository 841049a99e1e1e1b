import type { Pool } from 'pg';
import { newId, type DeliveryCause } from '@mailer/domain';
import { inTransaction, lockMessageDeliveries, messageState, type DeliveryRowState, type Lease, type MessageState } from './delivery-store';

/** What happened to one leased delivery in an attempt, already passed through the retry policy. */
export interface DeliveryDecision {
  deliveryId: string;
  status: 'accepted' | 'deferred' | 'bounced' | 'failed';
  cause: DeliveryCause | null;
  /** For `deferred`: when it is owed its next attempt. */
  nextAttemptAt?: Date;
}

/** One SMTP transaction, or the local decision that stood in for one. */
export interface AttemptRecord {
  startedAt: Date;
  endedAt: Date;
  outcome: 'accepted' | 'deferred' | 'bounced' | 'failed';
  cause: DeliveryCause | null;
  tls: boolean;
  /** Operator-only; the API never returns it. */
  mxHost: string | null;
}

export interface RecordedAttempt extends MessageState {
  /** Decisions applied; fewer than given when a lease was lost to another worker meanwhile. */
  applied: number;
}

/** One attempt to write, with the message state it leaves (derived by the caller). */
export interface AttemptWrite {
  lease: Lease;
  attempt: AttemptRecord;
  decisions: DeliveryDecision[];
  state: MessageState;
}

/** The statement of writeAttempts. */
const RECORD = `
with w as (
  select * from jsonb_to_recordset($1::jsonb) as w(i int, email_id text, lease timestamptz, n int, attempt_id text,
    started_at timestamptz, ended_at timestamptz, outcome text, recipients jsonb, bcc_recipients int, tls boolean,
    cause jsonb, mx_host text, status text, email_cause jsonb, terminal boolean, sender_id text, account_id text)
), decided as (
  select * from jsonb_to_recordset($2::jsonb) as v(i int, id text, status text, cause jsonb, next_attempt_at timestamptz, kind text, recipient text)
), locked as materialized (
  -- One primary-key probe per delivery, in id order (the order every writer locks in): as a
  -- join, the planner walked the whole primary key to merge it with this short list.
  select d.id, d.status, d.lease_expires_at
    from (select id from decided order by id) v
   cross join lateral (select id, status, lease_expires_at from deliveries where id = v.id offset 0 for update) d
), usage_locked as materialized (
  select u.account_id from (select distinct account_id from w order by account_id) k
   cross join lateral (select account_id from account_usage where account_id = k.account_id offset 0 for no key update) u
), sender_locked as materialized (
  select s.id from (select distinct sender_id from w order by sender_id) k
   cross join lateral (select id from senders where id = k.sender_id offset 0 for no key update) s
), ok as materialized (
  select w.* from w
   where (select count(*) from locked l join decided v on v.id = l.id
           where v.i = w.i and l.status = 'sending' and l.lease_expires_at = w.lease) = w.n
     and (select count(*) from usage_locked) >= 0
     and (select count(*) from sender_locked) >= 0
), ok_decided as (
  select v.*, ok.email_id, ok.ended_at, ok.sender_id from decided v join ok on ok.i = v.i
), updated as (
  update deliveries d
     set status = v.status, cause = v.cause, attempt_count = d.attempt_count + 1,
         next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at), lease_expires_at = null, updated_at = v.ended_at
    from ok_decided v where d.id = v.id
), attempt as (
  insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause, mx_host)
  select attempt_id, email_id,
         (select coalesce(max(a.number), 0) from attempts a where a.email_id = ok.email_id) + row_number() over (partition by email_id order by i),
         started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause, mx_host
    from ok
), decision_events as (
  insert into events (email_id, type, at, recipient, cause)
  select email_id, status, ended_at, case when kind = 'bcc' then null else recipient end, cause from ok_decided
), message as (
  update emails e
     set status = ok.status, cause = ok.email_cause, updated_at = ok.ended_at,
         completed_at = case when ok.terminal then ok.ended_at else e.completed_at end,
         text_body = case when ok.terminal then null else e.text_body end,
         html_body = case when ok.terminal then null else e.html_body end,
         content_purged_at = case when ok.terminal then ok.ended_at else e.content_purged_at end
    from ok where e.id = ok.email_id
), purged as (
  update attachments a set content = null from ok where a.email_id = ok.email_id and ok.terminal
), counters as (
  update senders s
     set accepted_count = s.accepted_count + c.accepted, bounced_count = s.bounced_count + c.bounced,
         failed_count = s.failed_count + c.failed, deferred_count = s.deferred_count + c.deferred
    from (select sender_id,
                 count(*) filter (where status = 'accepted') as accepted, count(*) filter (where status = 'bounced') as bounced,
                 count(*) filter (where status = 'failed') as failed, count(*) filter (where status = 'deferred') as deferred
            from ok_decided group by sender_id) c
   where s.id = c.sender_id
)
select i from ok`;

type Queryable = Pick<Pool, 'query'>;

/**
 * Writes several attempts, each all or nothing: an attempt any of whose deliveries is no
 * longer under its lease writes nothing. Locks are taken before any write, in the order
 * every writer uses: the deliveries, the accounts' usage rows (intake takes them first; the
 * active-delivery trigger on deliveries needs them), then the sender rows, each by key.
 * Returns the indexes of the attempts written.
 */
export async function writeAttempts(client: Queryable, writes: readonly AttemptWrite[]): Promise<Set<number>> {
  const attempts = writes.map(({ lease, attempt, decisions, state }, i) => {
    const leased = new Map(lease.deliveries.map((d) => [d.id, d]));
    const involved = decisions.map((d) => leased.get(d.deliveryId)!);
    return {
      i,
      email_id: lease.emailId,
      lease: lease.expiresAt,
      n: decisions.length,
      attempt_id: newId('attempt'),
      started_at: attempt.startedAt,
      ended_at: attempt.endedAt,
      outcome: attempt.outcome,
      recipients: involved.filter((d) => d.kind !== 'bcc').map((d) => d.recipient),
      bcc_recipients: involved.filter((d) => d.kind === 'bcc').length,
      tls: attempt.tls,
      cause: attempt.cause,
      mx_host: attempt.mxHost,
      status: state.status,
      email_cause: state.cause,
      terminal: state.terminal,
      sender_id: lease.senderId,
      account_id: lease.accountId,
    };
  });
  const decided = writes.flatMap(({ lease, decisions }, i) => {
    const leased = new Map(lease.deliveries.map((d) => [d.id, d]));
    return decisions.map((d) => {
      const delivery = leased.get(d.deliveryId)!;
      return { i, id: d.deliveryId, status: d.status, cause: d.cause, next_attempt_at: d.nextAttemptAt ?? null, kind: delivery.kind, recipient: delivery.recipient };
    });
  });
  const { rows } = await client.query({ name: 'record-attempts', text: RECORD, values: [JSON.stringify(attempts), JSON.stringify(decided)] });
  return new Set(rows.map((r) => r.i as number));
}

/** The deliveries after the decisions, for deriving the message's state. */
export function applyDecisions(view: readonly DeliveryRowState[], decisions: DeliveryDecision[], at: Date): DeliveryRowState[] {
  const byId = new Map(decisions.map((d) => [d.deliveryId, d]));
  return view.map((r) => {
    const d = byId.get(r.id);
    return d ? { ...r, status: d.status, cause: d.cause, updatedAt: at, ours: false } : r;
  });
}

/**
 * Writes one attempt in one transaction: the attempts row (to/cc recipients named, BCC
 * only counted), each delivery's status, cause, attempt count and next attempt, one event
 * per delivery (recipient null for BCC), the message's derived status and cause (with
 * `completed_at` and the body deleted once every delivery is terminal), and the sender's
 * counters (`deferred_count` counts deliveries currently deferred).
 *
 * `write` is how an attempt goes out when the caller's view of the message suffices (see
 * exclusiveView): the worker batches those (one statement for many attempts). Without a
 * view, or when that write finds a lease lost, the message's deliveries are locked and
 * read first, and a delivery no longer under this lease (it expired and another worker
 * took it) is left alone.
 */
export async function recordAttempt(
  pool: Pool,
  lease: Lease,
  attempt: AttemptRecord,
  decisions: DeliveryDecision[],
  view?: readonly DeliveryRowState[],
  write: (w: AttemptWrite) => Promise<boolean> = async (w) => (await writeAttempts(pool, [w])).has(0),
): Promise<RecordedAttempt> {
  if (view) {
    const state = messageState(applyDecisions(view, decisions, attempt.endedAt));
    if (await write({ lease, attempt, decisions, state })) return { ...state, applied: decisions.length };
  }
  return inTransaction(pool, async (client) => {
    const rows = await lockMessageDeliveries(client, lease.emailId, lease.expiresAt);
    const ours = new Set(rows.filter((r) => r.ours).map((r) => r.id));
    const applied = decisions.filter((d) => ours.has(d.deliveryId));
    if (applied.length === 0) return { ...messageState(rows), applied: 0 };
    const state = messageState(applyDecisions(rows, applied, attempt.endedAt));
    await writeAttempts(client, [{ lease, attempt, decisions: applied, state }]);
    return { ...state, applied: applied.length };
  });
}
