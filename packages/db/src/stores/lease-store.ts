import { randomUUID } from 'node:crypto';
import { counterDeltasByKey, isDomainReady, isOwedAttempt } from '@mailer/domain';
import type { Database, Row } from '../database';
import { lockFreeDeliveriesOf, lockLeasedDeliveries, lockMessagesDeliveries, lockSenders, toLockedDelivery, type LockedDelivery } from '../lock-order';
import { inTransaction, type Transaction } from '../transaction';
import { moveSenderCounts } from './counters-store';
import {
  deliveryEventsStatement,
  messageState,
  messageStateStatements,
  rowState,
  type DeliveryContext,
  type Lease,
} from './delivery-store';

/** A message as a delivery job finds it: who sends it and how, and what it now owns. */
export interface Claim {
  context: DeliveryContext;
  lease: Lease;
}

/** Sender and domain of each message (its content is read when it is built: loadMessageContents). */
function contextsStatement(tx: Transaction, emailIds: string[]) {
  return tx.sql`
    select e.id, e.account_id, e.from_email, e.from_name, e.created_at,
           s.id as sender_id, s.email as sender_email, s.transport_security_policy, s.configured_state, s.deleted_at as sender_deleted_at,
           d.name as domain_name, d.dkim_selector, d.deleted_at as domain_deleted_at,
           d.ownership_status, d.dkim_status, d.dmarc_status, d.return_path_status
      from emails e
      join senders s on s.id = e.sender_id
      join domains d on d.id = e.domain_id
     where e.id = any(${emailIds}::text[])`;
}

/** Each row's context; rows of one sender share its sender and domain objects. */
function toContexts(rows: readonly Row[]): Map<string, DeliveryContext> {
  const senders = new Map<string, Pick<DeliveryContext, 'sender' | 'domain'>>();
  const sharedOf = (r: Row) => {
    let shared = senders.get(r.sender_id);
    if (!shared) {
      shared = {
        sender: {
          id: r.sender_id,
          email: r.sender_email,
          policy: r.transport_security_policy,
          active: r.configured_state === 'enabled' && r.sender_deleted_at === null,
        },
        domain: {
          name: r.domain_name,
          dkimSelector: r.dkim_selector,
          returnPathVerified: r.return_path_status === 'verified',
          ready: r.domain_deleted_at === null && isDomainReady({ ownershipStatus: r.ownership_status, dkimStatus: r.dkim_status, dmarcStatus: r.dmarc_status }),
        },
      };
      senders.set(r.sender_id, shared);
    }
    return shared;
  };
  return new Map(
    rows.map((r) => [
      r.id as string,
      { email: { id: r.id, accountId: r.account_id, fromEmail: r.from_email, fromName: r.from_name, createdAt: r.created_at }, ...sharedOf(r) },
    ]),
  );
}

/**
 * For each message: its context (sender and domain) and a lease on its deliveries
 * that are owed an attempt (isOwedAttempt), under a token of its own, until `now + leaseMs`. Deliveries another transaction holds are
 * skipped. The leased deliveries become `sending` with a `sending` event each, their
 * messages' derived states are written, and deliveries leaving `deferred` come off their
 * sender's counter. Two round trips for all the messages; a message that does not exist
 * is left out of the answer.
 */
export async function claimMessages(db: Database, emailIds: string[], now: Date, leaseMs: number): Promise<Map<string, Claim>> {
  const expiresAt = new Date(now.getTime() + leaseMs);
  return inTransaction(db, async (tx) => {
    const [free, all, contexts] = await tx.send(
      lockFreeDeliveriesOf(tx, emailIds),
      // After the locks: rows held elsewhere as last committed, which says whether the lease will be alone.
      tx.sql`select id, email_id, status, cause, updated_at, attempt_count, lease_expires_at from deliveries where email_id = any(${emailIds}::text[])`,
      contextsStatement(tx, emailIds),
    );
    const contextById = toContexts(contexts);
    const picked = free
      .map(toLockedDelivery)
      .filter((d) => contextById.has(d.emailId) && isOwedAttempt(d, now, contextById.get(d.emailId)!.sender.active))
      .sort((a, b) => a.position - b.position);
    const pickedIds = new Set(picked.map((d) => d.id));
    const others = all.map((r) => rowState(toLockedDelivery(r), null)).filter((d) => !pickedIds.has(d.id));
    const emailOf = new Map(all.map((r) => [r.id as string, r.email_id as string]));

    const claims = new Map<string, Claim>();
    for (const [emailId, context] of contextById) {
      const mine = picked.filter((d) => d.emailId === emailId);
      claims.set(emailId, {
        context,
        lease: {
          emailId,
          accountId: context.email.accountId,
          senderId: context.sender.id,
          token: randomUUID(),
          expiresAt,
          deliveries: mine.map((d) => ({ id: d.id, recipient: d.recipient, recipientDomain: d.recipientDomain, kind: d.kind, attemptCount: d.attemptCount, createdAt: d.createdAt })),
          others: others.filter((d) => emailOf.get(d.id) === emailId),
        },
      });
    }
    if (picked.length > 0) await tx.commit(...leaseStatements(tx, picked, claims, now, expiresAt));
    return claims;
  });
}

function leaseStatements(tx: Transaction, picked: LockedDelivery[], claims: Map<string, Claim>, now: Date, expiresAt: Date) {
  const senderOf = (d: LockedDelivery) => claims.get(d.emailId)!.lease.senderId;
  const senderDeltas = counterDeltasByKey(picked.map((d) => ({ key: senderOf(d), from: d.status, to: 'sending' as const })));
  const leasedEmails = [...new Set(picked.map((d) => d.emailId))];
  return [
    ...(picked.some((d) => d.status === 'deferred') ? [lockSenders(tx, [...senderDeltas.keys()])] : []),
    tx.sql`
      update deliveries d set status = 'sending', lease_expires_at = ${expiresAt}, lease_token = x.token, updated_at = ${now}
        from unnest(${picked.map((d) => d.id)}::text[], ${picked.map((d) => claims.get(d.emailId)!.lease.token)}::text[]) as x(id, token)
       where d.id = x.id`,
    deliveryEventsStatement(
      tx,
      picked.map((d) => ({ emailId: d.emailId, type: 'sending', at: now, kind: d.kind, recipient: d.recipient, cause: null })),
    ),
    ...messageStateStatements(
      tx,
      leasedEmails.map((emailId) => {
        const { lease } = claims.get(emailId)!;
        const leased = lease.deliveries.map((d) => ({ status: 'sending' as const, cause: null, updatedAt: now }));
        return { emailId, at: now, ...messageState([...lease.others, ...leased]) };
      }),
    ),
    ...moveSenderCounts(tx, senderDeltas),
  ];
}

/**
 * Gives leased deliveries back without an attempt (shutdown before the message went out):
 * `deferred` again when they had attempts before, else `queued`, due now.
 */
export async function releaseLease(db: Database, lease: Lease, deliveryIds: string[], now: Date): Promise<void> {
  if (deliveryIds.length === 0) return;
  await inTransaction(db, async (tx) => {
    const [locked] = await tx.send(lockMessagesDeliveries(tx, [lease.emailId]));
    const releasing = new Set(deliveryIds);
    const rows = locked.map(toLockedDelivery);
    const released = rows
      .filter((d) => releasing.has(d.id) && rowState(d, lease.token).ours)
      .map((d) => ({ d, to: d.attemptCount > 0 ? ('deferred' as const) : ('queued' as const) }));
    if (released.length === 0) return;
    const statusAfter = new Map(released.map((r) => [r.d.id, r.to]));
    const after = rows.map((d) => {
      const state = rowState(d, lease.token);
      return { ...state, status: statusAfter.get(d.id) ?? state.status };
    });
    const senderDeltas = counterDeltasByKey(released.map(({ d, to }) => ({ key: lease.senderId, from: d.status, to })));
    await tx.commit(
      ...(released.some((r) => r.to === 'deferred') ? [lockSenders(tx, [lease.senderId])] : []),
      tx.sql`
        update deliveries d set status = x.status, lease_expires_at = null, lease_token = null, next_attempt_at = ${now}, updated_at = ${now}
          from unnest(${released.map((r) => r.d.id)}::text[], ${released.map((r) => r.to)}::text[]) as x(id, status)
         where d.id = x.id`,
      ...messageStateStatements(tx, [{ emailId: lease.emailId, at: now, ...messageState(after) }]),
      ...moveSenderCounts(tx, senderDeltas),
    );
  });
}

/** Leases a daemon holds: each with its token and the deliveries it covers. */
export interface HeldLease {
  token: string;
  deliveryIds: readonly string[];
}

/**
 * Pushes the expiry of the held leases' deliveries back to `expiresAt`, in one transaction
 * for all of them (docs/api-decisions.md, "Delivery"). Only a delivery still `sending`
 * under the same token is renewed: a lease recorded, released or taken over is never
 * extended. The locks are waited for at most `lockWaitMs` (claims and records hold them
 * briefly); past that the renewal throws and nothing is renewed. Resolves with how many
 * deliveries were renewed.
 */
export async function renewLeases(db: Database, leases: readonly HeldLease[], expiresAt: Date, lockWaitMs: number): Promise<number> {
  const ids = leases.flatMap((l) => l.deliveryIds);
  const tokens = leases.flatMap((l) => l.deliveryIds.map(() => l.token));
  if (ids.length === 0) return 0;
  return inTransaction(db, async (tx) => {
    const [, locked] = await tx.commit(
      tx.sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(lockWaitMs))}ms`}, true)`,
      lockLeasedDeliveries(tx, ids, tokens),
      tx.sql`
        update deliveries d set lease_expires_at = ${expiresAt}
          from unnest(${ids}::text[], ${tokens}::text[]) as x(id, token)
         where d.id = x.id and d.lease_token = x.token and d.status = 'sending'`,
    );
    return locked.length;
  });
}
