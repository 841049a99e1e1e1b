import { isIdOf, type DeliveryStatus } from '@mailer/domain';
import type { Database, Queryable } from '../database';
import { domainColumns, toDomainRow, type DomainRow } from './domain-rows';

/** Queries for the operator CLI: across accounts, never reachable from the HTTP API. */

export async function findActiveDomainById(db: Queryable, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db`select ${domainColumns(db)} from domains d where d.id = ${id} and d.deleted_at is null limit 1`;
  return row && toDomainRow(row);
}

export async function countDeliveriesByStatus(db: Queryable): Promise<Record<DeliveryStatus, number>> {
  const rows = await db`select status, count(*) as count from deliveries group by status`;
  const counts: Record<DeliveryStatus, number> = { queued: 0, sending: 0, deferred: 0, accepted: 0, bounced: 0, failed: 0 };
  // count(*) is a bigint, which the driver hands over as a string.
  for (const row of rows) counts[row.status as DeliveryStatus] = Number(row.count);
  return counts;
}

/**
 * Makes the message's deferred deliveries due now (the caller enqueues its job).
 * Undefined when there is no such message; otherwise how many deliveries were advanced.
 */
export async function makeDeferredDeliveriesDue(db: Database, emailId: string, now: Date): Promise<number | undefined> {
  if (!isIdOf('email', emailId)) return undefined;
  const [email] = await db`select id from emails where id = ${emailId} limit 1`;
  if (!email) return undefined;
  const advanced = await db`
    update deliveries set next_attempt_at = ${now}, updated_at = ${now}
    where email_id = ${emailId} and status = 'deferred'
    returning id`;
  return advanced.length;
}
