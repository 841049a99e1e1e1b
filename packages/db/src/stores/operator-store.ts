import { ACTIVE_STATUSES, DELIVERY_STATUSES, isIdOf, retryDeferred, type DeliveryStatus } from '@mailer/domain';
import type { Database, Queryable } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';
import { statusLiteral, statusSetLiteral } from '../deliveries/status-literals';
import { domainColumns, toDomainRow, type DomainRow } from './domain-rows';

/** Queries for the operator CLI: across accounts, never reachable from the HTTP API. */

export async function findActiveDomainById(db: Queryable, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db`select ${domainColumns(db)} from domains d where d.id = ${id} and d.deleted_at is null limit 1`;
  return row && toDomainRow(row);
}

export async function countDeliveriesByStatus(db: Queryable): Promise<Record<DeliveryStatus, number>> {
  const rows = await db`select status, count(*) as count from deliveries group by status`;
  const counts = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<DeliveryStatus, number>;
  // count(*) is a bigint, which the driver hands over as a string.
  for (const row of rows) counts[row.status as DeliveryStatus] = Number(row.count);
  return counts;
}

/** Recipient domains with the most owed deliveries (queued, deferred or sending), at most `limit`, most first. */
export async function owedDeliveriesByRecipientDomain(db: Queryable, limit: number): Promise<Map<string, number>> {
  const rows = await db`
    select recipient_domain, count(*) as owed from deliveries
     where status in ${statusSetLiteral(db, ACTIVE_STATUSES)}
     group by recipient_domain order by owed desc, recipient_domain limit ${limit}`;
  return new Map(rows.map((r) => [r.recipient_domain as string, Number(r.owed)]));
}

export interface OwedDeliveriesSummary {
  /** Owed deliveries by status. */
  byStatus: { queued: number; sending: number; deferred: number };
  /** When the oldest owed delivery was accepted; null when none is owed. */
  oldestCreatedAt: Date | null;
}

/**
 * What /metrics reports of the backlog, in one round trip: counts through the status index
 * (deliveries_status_due_idx), the oldest through the owed deliveries' own partial index,
 * whose predicate this statement repeats as constants so that the planner can use it.
 */
export async function owedDeliveriesSummary(db: Queryable): Promise<OwedDeliveriesSummary> {
  const [row] = await db`
    select
      (select count(*) from deliveries where status = ${statusLiteral(db, 'queued')}) as queued,
      (select count(*) from deliveries where status = ${statusLiteral(db, 'sending')}) as sending,
      (select count(*) from deliveries where status = ${statusLiteral(db, 'deferred')}) as deferred,
      (select min(created_at) from deliveries where status in ${statusSetLiteral(db, ACTIVE_STATUSES)}) as oldest`;
  // count(*) is a bigint, which the driver hands over as a string.
  return {
    byStatus: { queued: Number(row!.queued), sending: Number(row!.sending), deferred: Number(row!.deferred) },
    oldestCreatedAt: row!.oldest,
  };
}

/**
 * Makes the message's deferred deliveries due now (retryDeferred; the caller enqueues its
 * job). Undefined when there is no such message; otherwise how many deliveries were advanced,
 * and the message's account (its job's).
 */
export async function makeDeferredDeliveriesDue(db: Database, emailId: string, now: Date): Promise<{ advanced: number; accountId: string } | undefined> {
  if (!isIdOf('email', emailId)) return undefined;
  const { answer } = await changeDeliveries(db, [emailId], (messages) => {
    const message = messages.get(emailId);
    if (!message) return { answer: undefined };
    const changes = retryDeferred(message, now);
    return { ...changes, answer: { advanced: changes.answer.changed, accountId: message.accountId } };
  });
  return answer;
}
