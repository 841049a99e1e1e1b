import { randomUUID } from 'node:crypto';
import { claimOwed, isDomainReady, releaseLeased, type LeaseRelease, type Transition } from '@mailer/domain';
import type { Database, Row } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';
import { statusLiteral } from '../deliveries/status-literals';
import { enterLevel } from '../lock-order';
import { inTransaction, type Transaction } from '../transaction';
import type { DeliveryContext, Lease } from './delivery-store';

/** A message as a delivery job finds it: who sends it and how, and what it now owns. */
export interface Claim {
  context: DeliveryContext;
  lease: Lease;
}

/** Sender, domain, egress pool and sending status (its stream's) of each message (its content is read when it is built: loadMessageContents). */
function contextsStatement(tx: Transaction, emailIds: string[]) {
  return tx.sql`
    select e.id, e.account_id, e.from_email, e.from_name, e.created_at, e.test, e.type, e.unsubscribe,
           e.track_opens, e.track_clicks, coalesce(st.egress_pool, a.egress_pool) as egress_pool, st.sending_status,
           s.id as sender_id, s.email as sender_email, s.transport_security_policy, s.configured_state, s.deleted_at as sender_deleted_at,
           d.name as domain_name, d.deleted_at as domain_deleted_at, d.tracking_subdomain,
           d.ownership_status, d.dkim_status, d.dmarc_status, d.return_path_status
      from emails e
      join accounts a on a.id = e.account_id
      join account_streams st on st.account_id = e.account_id and st.stream = e.type
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
          trackingHost: `${r.tracking_subdomain}.${r.domain_name}`,
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
        email: {
          id: r.id,
          accountId: r.account_id,
          fromEmail: r.from_email,
          fromName: r.from_name,
          createdAt: r.created_at,
          test: r.test,
          type: r.type,
          unsubscribe: r.unsubscribe,
          track: { opens: r.track_opens, clicks: r.track_clicks },
        },
        egressPool: r.egress_pool,
        sendingPaused: r.sending_status === 'paused',
        ...sharedOf(r),
      },
    ]),
  );
}

/**
 * For each message: its context (sender and domain) and a lease on its deliveries that are
 * owed an attempt (claimOwed), under a token of its own, until `now + leaseMs`. Waiting for a
 * claim or record in progress (changeDeliveries) makes a second claim of a message find its
 * deliveries leased. Two round trips for all the messages; a message that does not exist is
 * left out of the answer.
 */
export async function claimMessages(db: Database, emailIds: string[], now: Date, leaseMs: number): Promise<Map<string, Claim>> {
  const expiresAt = new Date(now.getTime() + leaseMs);
  const { answer } = await changeDeliveries(
    db,
    emailIds,
    (messages, contexts) => {
      const claims = new Map<string, Claim>();
      const transitions: Transition[] = [];
      for (const [emailId, context] of toContexts(contexts)) {
        const message = messages.get(emailId);
        if (!message) continue;
        const token = randomUUID();
        const claimed = claimOwed(message, { token, expiresAt }, context.sender.active, now);
        transitions.push(...claimed.transitions!);
        const deliveries = claimed.answer.map((d) => ({ id: d.id, recipient: d.recipient, recipientDomain: d.recipientDomain, kind: d.kind, attemptCount: d.attemptCount, createdAt: d.createdAt }));
        claims.set(emailId, { context, lease: { emailId, accountId: message.accountId, senderId: message.senderId, token, expiresAt, deliveries } });
      }
      return { transitions, answer: claims };
    },
    { readAlongside: (tx) => contextsStatement(tx, emailIds) },
  );
  return answer;
}

/**
 * Gives leased deliveries back without an attempt (releaseLeased): released (shutdown before
 * the message went out; its account paused) they are due at `dueAt`, now unless given;
 * postponed (no warm-up allowance left today) they are due at `dueAt`, with a transition of
 * their own. A delivery no longer under this lease is left alone.
 */
export async function releaseLease(db: Database, lease: Lease, deliveryIds: string[], now: Date, release: LeaseRelease = { reason: 'released', dueAt: now }): Promise<void> {
  if (deliveryIds.length === 0) return;
  await changeDeliveries(db, [lease.emailId], (messages) => {
    const message = messages.get(lease.emailId);
    return message ? releaseLeased(message, lease.token, deliveryIds, release, now) : { answer: 0 };
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
