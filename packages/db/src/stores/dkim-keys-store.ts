import type { DkimAlgorithm, VerificationStatus } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import { domainColumns, toDomainRow, type DomainRow } from './domain-rows';

/** A `dkim_keys` row: a pending key (both times null), or one a newer key replaced (docs/api-decisions.md, "DKIM keys"). */
export interface DkimKeyRow {
  domainId: string;
  selector: string;
  algorithm: DkimAlgorithm;
  /** The record's `p=`. */
  publicKey: string;
  /** Set exactly while pending: a replaced key never signs again. */
  privateKeySealed: string | null;
  /** The pending key's record, as the last check found it. */
  recordStatus: VerificationStatus;
  createdAt: Date;
  activatedAt: Date | null;
  supersededAt: Date | null;
}

const toDkimKeyRow = (r: Row): DkimKeyRow => ({
  domainId: r.domain_id,
  selector: r.selector,
  algorithm: r.algorithm,
  publicKey: r.public_key,
  privateKeySealed: r.private_key_sealed,
  recordStatus: r.record_status,
  createdAt: r.created_at,
  activatedAt: r.activated_at,
  supersededAt: r.superseded_at,
});

/** The domain's keys other than those that sign now: pending ones first, then replaced ones, newest first. */
export async function listDkimKeys(db: Queryable, domainId: string): Promise<DkimKeyRow[]> {
  const rows = await db`
    select domain_id, selector, algorithm, public_key, private_key_sealed, record_status, created_at, activated_at, superseded_at
      from dkim_keys where domain_id = ${domainId}
     order by superseded_at desc nulls first, algorithm desc`;
  return rows.map(toDkimKeyRow);
}

export interface NewDkimKey {
  algorithm: DkimAlgorithm;
  selector: string;
  publicKey: string;
  privateKeySealed: string;
}

/**
 * Gives a domain created before Ed25519 its Ed25519 key, unless it has one already (a concurrent
 * reader may have given it one first). Returns whether this key was stored.
 */
export async function storeEd25519Key(db: Queryable, domainId: string, key: NewDkimKey): Promise<boolean> {
  const updated = await db`
    update domains set dkim_ed25519_selector = ${key.selector}, dkim_ed25519_public_key = ${key.publicKey},
                       dkim_ed25519_private_key_sealed = ${key.privateKeySealed}
     where id = ${domainId} and dkim_ed25519_selector is null
    returning id`;
  return updated.length > 0;
}

/**
 * A rotation's pending keys, one of each kind. Inserts nothing and returns false when the domain
 * has a pending rotation already (the partial unique index on pending keys decides).
 */
export async function insertPendingDkimKeys(db: Queryable, domainId: string, keys: readonly NewDkimKey[], now: Date): Promise<boolean> {
  const inserted = await db`
    insert into dkim_keys (domain_id, selector, algorithm, public_key, private_key_sealed, created_at)
    select ${domainId}, * , ${now}::timestamptz
      from unnest(${keys.map((k) => k.selector)}::text[], ${keys.map((k) => k.algorithm)}::text[],
                  ${keys.map((k) => k.publicKey)}::text[], ${keys.map((k) => k.privateKeySealed)}::text[])
    on conflict do nothing
    returning selector`;
  return inserted.length === keys.length;
}

/** What a check found at the pending keys' selectors. */
export function recordPendingDkimStatuses(db: Queryable, domainId: string, statuses: readonly { selector: string; status: VerificationStatus }[]) {
  return db`
    update dkim_keys k set record_status = v.status
      from unnest(${statuses.map((s) => s.selector)}::text[], ${statuses.map((s) => s.status)}::text[]) as v(selector, status)
     where k.domain_id = ${domainId} and k.selector = v.selector and k.superseded_at is null`;
}

/**
 * Signing switches to the pending keys (the caller holds the domain's row lock and has decided,
 * by pendingKeysTakeOver, that they take over): the keys that signed until now become replaced
 * keys without their private keys, the pending ones move onto the domain row with their record
 * statuses, and replaced keys retired before `retiredBefore` are forgotten. One round trip.
 */
export function switchToPendingDkimKeys(db: Queryable, domain: DomainRow, now: Date, retiredBefore: Date) {
  return db`
    with forgotten as (
      delete from dkim_keys where domain_id = ${domain.id} and superseded_at < ${retiredBefore}
    ), pending as (
      delete from dkim_keys where domain_id = ${domain.id} and superseded_at is null
      returning selector, algorithm, public_key, private_key_sealed, record_status
    ), replaced as (
      insert into dkim_keys (domain_id, selector, algorithm, public_key, created_at, activated_at, superseded_at)
      select ${domain.id}, selector, algorithm, public_key, ${now}::timestamptz, ${domain.dkimActivatedAt}::timestamptz, ${now}::timestamptz
        from (values (${domain.dkimSelector}, 'rsa', ${domain.dkimPublicKey}),
                     (${domain.dkimEd25519Selector}::text, 'ed25519', ${domain.dkimEd25519PublicKey}::text)) as k(selector, algorithm, public_key)
       where selector is not null
    )
    update domains d set
      dkim_selector = rsa.selector, dkim_public_key = rsa.public_key, dkim_private_key_sealed = rsa.private_key_sealed,
      dkim_status = rsa.record_status,
      dkim_ed25519_selector = ed.selector, dkim_ed25519_public_key = ed.public_key, dkim_ed25519_private_key_sealed = ed.private_key_sealed,
      dkim_ed25519_status = coalesce(ed.record_status, 'not_checked'),
      dkim_activated_at = ${now}, updated_at = ${now}
      from pending rsa left join pending ed on ed.algorithm = 'ed25519'
     where rsa.algorithm = 'rsa' and d.id = ${domain.id}`;
}

/**
 * Up to `limit` active domains, keys active longest first, whose keys became active before
 * `cutoff` (scheduledRotationCutoff) and that have no pending rotation. Daemons that pick the
 * same domain at once both try; insertPendingDkimKeys lets one of them start the rotation.
 */
export async function findDomainsDueForRotation(db: Queryable, options: { cutoff: Date; limit: number }): Promise<DomainRow[]> {
  const rows = await db`
    select ${domainColumns(db)} from domains d
     where d.deleted_at is null and d.dkim_activated_at < ${options.cutoff}
       and not exists (select 1 from dkim_keys k where k.domain_id = d.id and k.superseded_at is null)
     order by d.dkim_activated_at, d.id
     limit ${options.limit}`;
  return rows.map(toDomainRow);
}
