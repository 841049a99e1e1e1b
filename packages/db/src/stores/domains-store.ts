import { and, eq, isNull } from 'drizzle-orm';
import { isIdOf } from '@mailer/domain';
import type { DbOrTx } from '../database';
import { domains } from '../schema/domains';

export type DomainRow = typeof domains.$inferSelect;

/**
 * The account's active domain with this id, or undefined when the id is malformed,
 * unknown, deleted or another account's: callers answer all four as domain_not_found.
 */
export async function findDomain(db: DbOrTx, accountId: string, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.id, id), eq(domains.accountId, accountId), isNull(domains.deletedAt)))
    .limit(1);
  return row;
}

/** Ready to send: ownership, DKIM and DMARC all verified. */
export function isDomainReady(domain: Pick<DomainRow, 'ownershipStatus' | 'dkimStatus' | 'dmarcStatus'>): boolean {
  return domain.ownershipStatus === 'verified' && domain.dkimStatus === 'verified' && domain.dmarcStatus === 'verified';
}
