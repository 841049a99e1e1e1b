import { randomUUID } from 'node:crypto';
import { isDomainReady, isOwedAttempt } from '@mailer/domain';
import type { Database, Row } from '../database';
import { heldBy, lockedMessagesFrom, lockMessages } from '../deliveries/locked-messages';
import { statusLiteral } from '../deliveries/status-literals';
import { writeTransitions, type Transition } from '../deliveries/transition-writer';
import { enterLevel } from '../lock-order';
import { inTransaction, type Transaction } from '../transaction';
import type { DeliveryContext, Lease } from './delivery-store';

/** A message as a delivery job finds it: who sends it and how, and what it now owns. */
export interface Claim {
  context: DeliveryContext;
  lease: Lease;
}

/** Sender, domain, egress pool and sending status of each message (its content is read when it is built: loadMessageContents). */
function contextsStatement(tx: Transaction, emailIds: string[]) {
  return tx.sql`
    select e.id, e.account_id, e.from_email, e.from_name, e.created_at, e.test, a.egress_pool, a.sending_status,
           s.id as sender_id, s.email as sender_email, s.transport_security_policy, s.configured_state, s.deleted_at as sender_deleted_at,
           d.name as domain_name, d.deleted_at as domain_deleted_at,
           d.ownership_status, d.dkim_status, d.dmarc_status, d.return_path_status
      from emails e
      join accounts a on a.id = e.account_id
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
      {
        email: { id: r.id, accountId: r.account_id, fromEmail: r.from_email, fromName: r.from_name, createdAt: r.created_at, test: r.test },
        egressPool: r.egress_pool,
        sendingPaused: r.sending_status === 'paused',
        ...sharedOf(r),
      },
    ]),
  );
}

/**
 * For each message: its context (sender and domain) and a lease on its deliveries that are
 * owed an attempt (isOwedAttempt), under a token of its own, until `now + leaseMs`. The
 * messages' deliveries are locked first (lock-order), waiting for a claim or record in
 * progress, which makes a second claim of a message find its deliveries leased. The leased
 * deliveries move to `sending` through the transition writer (`claimed`); each keeps the cause
 * of its last deferral. Two round trips for all the messages; a message that does not exist
 * is left out of the answer.
 */
export async function claimMessages(db: Database, emailIds: string[], now: Date, leaseMs: number): Promise<Map<string, Claim>> {
  const expiresAt = new Date(now.getTime() + leaseMs);
  return inTransaction(db, async (tx) => {
    const { locked, contexts } = await tx.send({ locked: lockMessages(tx, emailIds), contexts: contextsStatement(tx, emailIds) });
    const messages = lockedMessagesFrom(locked);
    const claims = new Map<string, Claim>();
    const transitions: Transition[] = [];
    for (const [emailId, context] of toContexts(contexts)) {
      const message = messages.get(emailId);
      if (!message) continue;
      const token = randomUUID();
      const owed = message.deliveries.filter((d) => isOwedAttempt(d, now, context.sender.active)).sort((a, b) => a.position - b.position);
      claims.set(emailId, {
        context,
        lease: {
          emailId,
          accountId: message.accountId,
          senderId: message.senderId,
          token,
          expiresAt,
          deliveries: owed.map((d) => ({ id: d.id, recipient: d.recipient, recipientDomain: d.recipientDomain, kind: d.kind, attemptCount: d.attemptCount, createdAt: d.createdAt })),
        },
      });
      for (const d of owed) transitions.push({ reason: 'claimed', delivery: d.id, to: 'sending', cause: d.cause, at: now, lease: { token, expiresAt } });
    }
    if (transitions.length > 0) await tx.commit(...writeTransitions(tx, { messages: [...messages.values()], transitions }).statements);
    return claims;
  });
}

/**
 * Gives leased deliveries back without an attempt: `deferred` again when they had attempts
 * before (with the cause of their last deferral), else `queued`. Released (shutdown before the
 * message went out; its account paused) they are due at `dueAt`, now unless given; postponed
 * (no warm-up allowance left today) they are due at `dueAt`, with a transition of their own.
 * A delivery no longer under this lease is left alone.
 */
export async function releaseLease(
  db: Database,
  lease: Lease,
  deliveryIds: string[],
  now: Date,
  release: { reason: 'released' | 'postponed'; dueAt: Date } = { reason: 'released', dueAt: now },
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await inTransaction(db, async (tx) => {
    const { locked } = await tx.send({ locked: lockMessages(tx, [lease.emailId]) });
    const message = lockedMessagesFrom(locked).get(lease.emailId);
    if (!message) return;
    const releasing = new Set(deliveryIds);
    const transitions: Transition[] = message.deliveries
      .filter((d) => releasing.has(d.id) && heldBy(d, lease.token))
      .map((d) => ({
        reason: release.reason,
        delivery: d.id,
        to: d.attemptCount > 0 ? 'deferred' : 'queued',
        cause: d.cause,
        at: now,
        nextAttemptAt: release.dueAt,
      }));
    if (transitions.length > 0) await tx.commit(...writeTransitions(tx, { messages: [message], transitions }).statements);
  });
}

/** Leases a daemon holds: each with its token and the deliveries it covers. */
export interface HeldLease {
  token: string;
  deliveryIds: readonly string[];
}

/**
 * Level 1, waiting for holders: the deliveries still `sending` under the given leases
 * (`ids[i]` under the lease whose token is `tokens[i]`); a delivery recorded, released or
 * taken over meanwhile is left out, as its latest version reads.
 */
function lockLeasedDeliveries(tx: Transaction, ids: readonly string[], tokens: readonly string[]) {
  enterLevel(tx, 'deliveries', ids);
  return tx.sql`
    select d.id from deliveries d
      join unnest(${ids as string[]}::text[], ${tokens as string[]}::text[]) as x(id, token) on d.id = x.id and d.lease_token = x.token
     where d.status = ${statusLiteral(tx.sql, 'sending')}
     order by d.id
       for update of d`;
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
         where d.id = x.id and d.lease_token = x.token and d.status = ${statusLiteral(tx.sql, 'sending')}`,
    );
    return locked.length;
  });
}

/**
 * The deliveries PostgreSQL still has `sending` under the leases given, each lease running
 * past `validUntil`: the only ones a daemon may send (docs/api-decisions.md, "Delivery", the
 * lease checked before each transaction). No other daemon takes a delivery over before its
 * lease runs out, so a read is enough; a delivery recorded, released, taken over or about to
 * lapse is left out.
 */
export async function stillLeased(db: Database, leases: readonly HeldLease[], validUntil: Date): Promise<Set<string>> {
  const ids = leases.flatMap((l) => l.deliveryIds);
  const tokens = leases.flatMap((l) => l.deliveryIds.map(() => l.token));
  if (ids.length === 0) return new Set();
  const rows = await db`
    select d.id from deliveries d
      join unnest(${ids}::text[], ${tokens}::text[]) as x(id, token) on d.id = x.id and d.lease_token = x.token
     where d.status = ${statusLiteral(db, 'sending')} and d.lease_expires_at > ${validUntil}`;
  return new Set(rows.map((r) => r.id as string));
}
