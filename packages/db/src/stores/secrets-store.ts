import type { Database, Queryable } from '../database';
import { inTransaction } from '../transaction';

/**
 * The secrets the service stores sealed under ENCRYPTION_KEY: today the domains' DKIM
 * private keys (sealed for DKIM_SEAL_PURPOSE), the only values written with `seal`.
 */

/** A sealed value and the id of the row that holds it. */
export interface SealedSecret {
  id: string;
  sealed: string;
}

/** The newest active domain's sealed DKIM key, if any: what the start-up check tries to open. */
export async function newestSealedDkimKey(db: Queryable): Promise<SealedSecret | undefined> {
  const [row] = await db`
    select id, dkim_private_key_sealed from domains
    where deleted_at is null
    order by created_at desc, id desc
    limit 1`;
  return row && { id: row.id, sealed: row.dkim_private_key_sealed };
}

/**
 * Re-seals every stored DKIM key (deleted domains' too) in one transaction, the rows locked
 * in id order: `reseal` gives each its new sealed value, or undefined to leave it as it is;
 * when it throws, nothing is written. Returns how many were rewritten and left.
 */
export async function resealDkimKeys(
  db: Database,
  reseal: (secret: SealedSecret) => string | undefined,
): Promise<{ resealed: number; unchanged: number }> {
  return inTransaction(db, async (tx) => {
    const [rows] = await tx.send(tx.sql`select id, dkim_private_key_sealed from domains order by id for update`);
    const ids: string[] = [];
    const values: string[] = [];
    for (const row of rows) {
      const next = reseal({ id: row.id, sealed: row.dkim_private_key_sealed });
      if (next === undefined) continue;
      ids.push(row.id);
      values.push(next);
    }
    await tx.commit(tx.sql`
      update domains d set dkim_private_key_sealed = v.sealed
      from unnest(${ids}::text[], ${values}::text[]) as v(id, sealed)
      where d.id = v.id`);
    return { resealed: ids.length, unchanged: rows.length - ids.length };
  });
}
