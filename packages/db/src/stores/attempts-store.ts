import { counterDeltasByKey, deliveryEventType, newId, suppressesRecipient, type DeliveryCause } from '@mailer/domain';
import { booleansParam, timestampsParam, type Database, type Row } from '../database';
import { lockAccountUsage, lockDeliveries, lockMessagesDeliveries, lockSenders, toLockedDelivery, type LockedDelivery } from '../lock-order';
import { inTransaction, type Transaction } from '../transaction';
import { moveActiveCounts, moveSenderCounts } from './counters-store';
import { suppressRecipients } from './suppressions-store';
import { accountsWithEndpoints, webhookEventsOutbox } from './webhook-outbox-store';
import {
  deliveryEventsStatement,
  heldBy,
  messageState,
  messageStateStatements,
  rowState,
  type DeliveryRowState,
  type Lease,
  type MessageState,
} from './delivery-store';

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

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * Writes the attempts, whose deliveries the caller has locked (`locked`, lock-order level
 * 1) and found under the attempts' leases, and commits: after the usage and sender locks
 * (levels 2 and 3), the attempts rows (to/cc recipients named, BCC only counted), each
 * delivery's status, cause, attempt count and next attempt, one event per delivery
 * (recipient null for BCC), the messages' derived states, the counters the transitions
 * move (counterDeltas), the suppression of recipients that bounced for good
 * (suppressesRecipient), and the webhook events the transitions raise (the outbox) for the
 * accounts in `listening` (accountsWithEndpoints).
 */
function commitAttempts(tx: Transaction, writes: readonly AttemptWrite[], locked: ReadonlyMap<string, LockedDelivery>, listening: ReadonlySet<string>) {
  const decided = writes.flatMap((w) => w.decisions.map((d) => ({ w, d, delivery: locked.get(d.deliveryId)! })));
  const reported = decided.filter(({ w }) => listening.has(w.lease.accountId));
  const accountDeltas = counterDeltasByKey(decided.map(({ w, d, delivery }) => ({ key: w.lease.accountId, from: delivery.status, to: d.status })));
  const senderDeltas = counterDeltasByKey(decided.map(({ w, d, delivery }) => ({ key: w.lease.senderId, from: delivery.status, to: d.status })));
  // Attempts of one message in one batch are numbered in the order given.
  const seen = new Map<string, number>();
  const attempts = writes.map((w) => {
    const involved = w.decisions.map((d) => locked.get(d.deliveryId)!);
    const seq = (seen.get(w.lease.emailId) ?? 0) + 1;
    seen.set(w.lease.emailId, seq);
    return { w, seq, recipients: involved.filter((d) => d.kind !== 'bcc').map((d) => d.recipient), bcc: involved.filter((d) => d.kind === 'bcc').length };
  });
  const movedAccounts = [...accountDeltas].filter(([, d]) => d.active !== 0).map(([id]) => id);
  const suppressed = decided
    .filter(({ d, delivery }) => suppressesRecipient({ kind: delivery.kind, status: d.status, cause: d.cause }))
    .map(({ w, delivery }) => ({ accountId: w.lease.accountId, email: delivery.recipient, emailId: w.lease.emailId, at: w.attempt.endedAt }));
  return tx.commit(
    ...(movedAccounts.length > 0 ? [lockAccountUsage(tx, movedAccounts)] : []),
    lockSenders(tx, [...senderDeltas.keys()]),
    tx.sql`
      update deliveries d
         set status = x.status, cause = x.cause::jsonb, attempt_count = d.attempt_count + 1,
             next_attempt_at = coalesce(x.next_attempt_at, d.next_attempt_at), lease_expires_at = null, lease_token = null, updated_at = x.at
        from unnest(${decided.map(({ d }) => d.deliveryId)}::text[], ${decided.map(({ d }) => d.status)}::text[],
                    ${decided.map(({ d }) => json(d.cause))}::text[], ${timestampsParam(decided.map(({ d }) => d.nextAttemptAt ?? null))}::text[]::timestamptz[],
                    ${timestampsParam(decided.map(({ w }) => w.attempt.endedAt))}::text[]::timestamptz[])
             as x(id, status, cause, next_attempt_at, at)
       where d.id = x.id`,
    tx.sql`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause, mx_host)
      select x.id, x.email_id, (select coalesce(max(a.number), 0) from attempts a where a.email_id = x.email_id) + x.seq,
             x.started_at, x.ended_at, x.outcome, x.recipients::jsonb, x.bcc_recipients, x.tls, x.cause::jsonb, x.mx_host
        from unnest(${attempts.map(() => newId('attempt'))}::text[], ${attempts.map(({ w }) => w.lease.emailId)}::text[], ${attempts.map((a) => a.seq)}::int[],
                    ${timestampsParam(attempts.map(({ w }) => w.attempt.startedAt))}::text[]::timestamptz[], ${timestampsParam(attempts.map(({ w }) => w.attempt.endedAt))}::text[]::timestamptz[],
                    ${attempts.map(({ w }) => w.attempt.outcome)}::text[], ${attempts.map((a) => JSON.stringify(a.recipients))}::text[],
                    ${attempts.map((a) => a.bcc)}::int[], ${booleansParam(attempts.map(({ w }) => w.attempt.tls))}::text[]::boolean[],
                    ${attempts.map(({ w }) => json(w.attempt.cause))}::text[], ${attempts.map(({ w }) => w.attempt.mxHost)}::text[])
             as x(id, email_id, seq, started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause, mx_host)`,
    deliveryEventsStatement(
      tx,
      decided.map(({ w, d, delivery }) => ({ emailId: w.lease.emailId, type: d.status, at: w.attempt.endedAt, kind: delivery.kind, recipient: delivery.recipient, cause: d.cause })),
    ),
    ...messageStateStatements(tx, writes.map((w) => ({ emailId: w.lease.emailId, at: w.attempt.endedAt, ...w.state }))),
    ...moveActiveCounts(tx, accountDeltas),
    ...moveSenderCounts(tx, senderDeltas),
    ...(suppressed.length > 0 ? [suppressRecipients(tx, 'hard_bounce', suppressed)] : []),
    ...(reported.length === 0
      ? []
      : [
          webhookEventsOutbox(
            tx,
            reported.map(({ w, d, delivery }) => ({
              accountId: w.lease.accountId,
              type: deliveryEventType(d.status)!,
              emailId: w.lease.emailId,
              recipient: delivery.kind === 'bcc' ? null : delivery.recipient,
              recipientKind: delivery.kind,
              status: d.status,
              cause: d.cause,
              attemptCount: delivery.attemptCount + 1,
              at: w.attempt.endedAt,
            })),
          ),
        ]),
  );
}

const accountIdsOf = (rows: readonly Row[]) => new Set(rows.map((r) => r.account_id as string));

/**
 * Writes several attempts in one transaction, each all or nothing: an attempt any of whose
 * deliveries is no longer under its lease (it expired and another worker took it) writes
 * nothing. Returns the indexes of the attempts written.
 */
export async function writeAttempts(db: Database, writes: readonly AttemptWrite[]): Promise<Set<number>> {
  return inTransaction(db, async (tx) => {
    const [rows, listening] = await tx.send(
      lockDeliveries(tx, writes.flatMap((w) => w.decisions.map((d) => d.deliveryId))),
      accountsWithEndpoints(tx, writes.map((w) => w.lease.accountId)),
    );
    const locked = new Map(rows.map((r) => [r.id as string, toLockedDelivery(r)]));
    const written = new Set<number>();
    writes.forEach((w, i) => {
      if (w.decisions.every((d) => locked.has(d.deliveryId) && heldBy(locked.get(d.deliveryId)!, w.lease.token))) written.add(i);
    });
    if (written.size > 0) await commitAttempts(tx, writes.filter((_, i) => written.has(i)), locked, accountIdsOf(listening));
    return written;
  });
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
 * Records one attempt (see commitAttempts for what it writes).
 *
 * `write` is how an attempt goes out when the caller's view of the message suffices (see
 * exclusiveView): the worker batches those (writeAttempts, one transaction for many).
 * Without a view, or when that write finds a lease lost, the message's deliveries are
 * locked and read first, and a delivery no longer under this lease is left alone.
 */
export async function recordAttempt(
  db: Database,
  lease: Lease,
  attempt: AttemptRecord,
  decisions: DeliveryDecision[],
  view?: readonly DeliveryRowState[],
  write: (w: AttemptWrite) => Promise<boolean> = async (w) => (await writeAttempts(db, [w])).has(0),
): Promise<RecordedAttempt> {
  if (view) {
    const state = messageState(applyDecisions(view, decisions, attempt.endedAt));
    if (await write({ lease, attempt, decisions, state })) return { ...state, applied: decisions.length };
  }
  return inTransaction(db, async (tx) => {
    const [rows, listening] = await tx.send(lockMessagesDeliveries(tx, [lease.emailId]), accountsWithEndpoints(tx, [lease.accountId]));
    const locked = rows.map(toLockedDelivery);
    const states = locked.map((d) => rowState(d, lease.token));
    const ours = new Set(states.filter((r) => r.ours).map((r) => r.id));
    const applied = decisions.filter((d) => ours.has(d.deliveryId));
    if (applied.length === 0) return { ...messageState(states), applied: 0 };
    const state = messageState(applyDecisions(states, applied, attempt.endedAt));
    await commitAttempts(tx, [{ lease, attempt, decisions: applied, state }], new Map(locked.map((d) => [d.id, d])), accountIdsOf(listening));
    return { ...state, applied: applied.length };
  });
}
