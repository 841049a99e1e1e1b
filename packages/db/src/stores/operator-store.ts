import { and, eq, isNull, sql } from 'drizzle-orm';
import { isIdOf } from '@mailer/domain';
import type { Database, DbOrTx } from '../database';
import { domains } from '../schema/domains';
import { DELIVERY_STATUSES, deliveries, emails, type DeliveryStatusValue } from '../schema/emails';
import type { DomainRow } from './domains-store';

/** Queries for the operator CLI: across accounts, never reachable from the HTTP API. */

export async function findActiveDomainById(db: DbOrTx, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db.select().from(domains).where(and(eq(domains.id, id), isNull(domains.deletedAt))).limit(1);
  return row;
}

export async function countDeliveriesByStatus(db: DbOrTx): Promise<Record<DeliveryStatusValue, number>> {
  const rows = await db
    .select({ status: deliveries.status, count: sql<number>`count(*)::int` })
    .from(deliveries)
    .groupBy(deliveries.status);
  const counts = Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0])) as Record<DeliveryStatusValue, number>;
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

/**
 * Makes the message's deferred deliveries due now (the caller enqueues its job).
 * Undefined when there is no such message; otherwise how many deliveries were advanced.
 */
export async function makeDeferredDeliveriesDue(db: Database, emailId: string, now: Date): Promise<number | undefined> {
  if (!isIdOf('email', emailId)) return undefined;
  const [email] = await db.select({ id: emails.id }).from(emails).where(eq(emails.id, emailId)).limit(1);
  if (!email) return undefined;
  const advanced = await db
    .update(deliveries)
    .set({ nextAttemptAt: now, updatedAt: now })
    .where(and(eq(deliveries.emailId, emailId), eq(deliveries.status, 'deferred')))
    .returning({ id: deliveries.id });
  return advanced.length;
}
