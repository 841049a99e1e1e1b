import type { Database, Queryable } from '../database';
import { inTransaction } from '../transaction';

/**
 * The secrets the service stores sealed under ENCRYPTION_KEY: the domains' DKIM private
 * keys, RSA and Ed25519, signing or pending (sealed for DKIM_SEAL_PURPOSE), the webhook endpoints' signing secrets, current
 * and previous (WEBHOOK_SECRET_SEAL_PURPOSE), and their HTTP Basic credentials (WEBHOOK_CREDENTIALS_SEAL_PURPOSE): the only
 * values written with `seal`.
 */

/** A sealed value, the id of the row that holds it, and what it is. */
export interface SealedSecret {
  id: string;
  sealed: string;
  kind: 'dkim_private_key' | 'webhook_secret' | 'webhook_credentials';
}

/** The newest active domain's sealed DKIM key, if any: what the start-up check tries to open. */
export async function newestSealedDkimKey(db: Queryable): Promise<SealedSecret | undefined> {
  const [row] = await db`
    select id, dkim_private_key_sealed from domains
    where deleted_at is null
    order by created_at desc, id desc
    limit 1`;
  return row && { id: row.id, sealed: row.dkim_private_key_sealed, kind: 'dkim_private_key' };
}

/**
 * Re-seals every stored secret (deleted rows' too) in one transaction, the rows locked in id
 * order, domains, then pending DKIM keys, then webhook endpoints: `reseal` gives each its new sealed value, or
 * undefined to leave it as it is; when it throws, nothing is written. Returns how many were
 * rewritten and left.
 */
export async function resealSecrets(
  db: Database,
  reseal: (secret: SealedSecret) => string | undefined,
): Promise<{ resealed: number; unchanged: number }> {
  return inTransaction(db, async (tx) => {
    const [domains, pending, endpoints] = await tx.send(
      tx.sql`select id, dkim_private_key_sealed, dkim_ed25519_private_key_sealed from domains order by id for update`,
      tx.sql`select domain_id, selector, private_key_sealed from dkim_keys where private_key_sealed is not null order by domain_id, selector for update`,
      tx.sql`select id, secret_sealed, previous_secret_sealed, basic_auth_sealed from webhook_endpoints order by id for update`,
    );
    const next = (id: string, sealed: string | null, kind: SealedSecret['kind']) => (sealed === null ? undefined : reseal({ id, sealed, kind }));
    const keys = domains.map((r) => ({
      id: r.id as string,
      sealed: next(r.id, r.dkim_private_key_sealed, 'dkim_private_key'),
      ed25519: next(r.id, r.dkim_ed25519_private_key_sealed, 'dkim_private_key'),
    }));
    const pendingKeys = pending.map((r) => ({ id: r.domain_id as string, selector: r.selector as string, sealed: next(r.domain_id, r.private_key_sealed, 'dkim_private_key') }));
    const secrets = endpoints.map((r) => ({
      id: r.id as string,
      sealed: next(r.id, r.secret_sealed, 'webhook_secret'),
      previous: next(r.id, r.previous_secret_sealed, 'webhook_secret'),
      credentials: next(r.id, r.basic_auth_sealed, 'webhook_credentials'),
    }));
    const changedKeys = keys.filter((k) => k.sealed !== undefined || k.ed25519 !== undefined);
    const changedPending = pendingKeys.filter((k) => k.sealed !== undefined);
    const changedSecrets = secrets.filter((s) => s.sealed !== undefined || s.previous !== undefined || s.credentials !== undefined);
    await tx.commit(
      tx.sql`
        update domains d
           set dkim_private_key_sealed = coalesce(v.sealed, d.dkim_private_key_sealed),
               dkim_ed25519_private_key_sealed = coalesce(v.ed25519, d.dkim_ed25519_private_key_sealed)
          from unnest(${changedKeys.map((k) => k.id)}::text[], ${changedKeys.map((k) => k.sealed ?? null)}::text[],
                      ${changedKeys.map((k) => k.ed25519 ?? null)}::text[]) as v(id, sealed, ed25519)
         where d.id = v.id`,
      tx.sql`
        update dkim_keys k set private_key_sealed = v.sealed
          from unnest(${changedPending.map((k) => k.id)}::text[], ${changedPending.map((k) => k.selector)}::text[],
                      ${changedPending.map((k) => k.sealed!)}::text[]) as v(domain_id, selector, sealed)
         where k.domain_id = v.domain_id and k.selector = v.selector`,
      tx.sql`
        update webhook_endpoints w
           set secret_sealed = coalesce(v.sealed, w.secret_sealed), previous_secret_sealed = coalesce(v.previous, w.previous_secret_sealed),
               basic_auth_sealed = coalesce(v.credentials, w.basic_auth_sealed)
          from unnest(${changedSecrets.map((s) => s.id)}::text[], ${changedSecrets.map((s) => s.sealed ?? null)}::text[],
                      ${changedSecrets.map((s) => s.previous ?? null)}::text[], ${changedSecrets.map((s) => s.credentials ?? null)}::text[])
               as v(id, sealed, previous, credentials)
         where w.id = v.id`,
    );
    const stored =
      domains.length + domains.filter((r) => r.dkim_ed25519_private_key_sealed !== null).length + pending.length +
      endpoints.length + endpoints.filter((r) => r.previous_secret_sealed !== null).length + endpoints.filter((r) => r.basic_auth_sealed !== null).length;
    const resealed =
      keys.reduce((n, k) => n + Number(k.sealed !== undefined) + Number(k.ed25519 !== undefined), 0) + changedPending.length + secrets.reduce((n, s) => n + Number(s.sealed !== undefined) + Number(s.previous !== undefined) + Number(s.credentials !== undefined), 0);
    return { resealed, unchanged: stored - resealed };
  });
}
