import { DEFAULT_POOL, type EmailType } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';

/**
 * Egress pools and their addresses (docs/api-decisions.md, "Providers and egress pools"),
 * written by the operator CLI, read by the delivery daemons.
 */
export interface EgressAddress {
  address: string;
  pool: string;
  heloName: string;
  /** `YYYY-MM-DD` (UTC) its warm-up started; null: warm, no cap. */
  warmUpStartedOn: string | null;
}

export interface EgressPool {
  name: string;
  addresses: EgressAddress[];
  /** Accounts assigned to it (an account with none is the `default` pool's). */
  accounts: number;
}

// `host()` gives the address without a prefix length; `to_char` the date as written.
const addressColumns = (db: Queryable) => db`host(address) as address, pool_name, helo_name, to_char(warm_up_started_on, 'YYYY-MM-DD') as warm_up_started_on`;

const toAddress = (r: Row): EgressAddress => ({ address: r.address, pool: r.pool_name, heloName: r.helo_name, warmUpStartedOn: r.warm_up_started_on });

/** False when a pool of that name exists already. */
export async function createEgressPool(db: Queryable, name: string): Promise<boolean> {
  const rows = await db`insert into egress_pools (name) values (${name}) on conflict (name) do nothing returning name`;
  return rows.length > 0;
}

/** Adds an address to a pool; `pool_not_found`, or `address_taken` with the pool that holds it. */
export async function addEgressAddress(
  db: Queryable,
  address: EgressAddress,
): Promise<{ ok: true } | { ok: false; reason: 'pool_not_found' } | { ok: false; reason: 'address_taken'; pool: string }> {
  const inserted = await db`
    insert into egress_addresses (address, pool_name, helo_name, warm_up_started_on)
    select ${address.address}::inet, name, ${address.heloName}, ${address.warmUpStartedOn}::date from egress_pools where name = ${address.pool}
    on conflict (address) do nothing
    returning address`;
  if (inserted.length > 0) return { ok: true };
  const [found] = await db`
    select exists (select 1 from egress_pools where name = ${address.pool}) as pool_exists,
           (select pool_name from egress_addresses where address = ${address.address}::inet) as holder`;
  return found!.pool_exists ? { ok: false, reason: 'address_taken', pool: found!.holder } : { ok: false, reason: 'pool_not_found' };
}

/** Every pool with its addresses and how many accounts it has, by name. */
export async function listEgressPools(db: Queryable): Promise<EgressPool[]> {
  const [pools, addresses] = await Promise.all([
    db`select p.name, (select count(*)::int from accounts a where a.egress_pool = p.name) as accounts from egress_pools p order by p.name`,
    db`select ${addressColumns(db)} from egress_addresses order by pool_name, address`,
  ]);
  const byPool = new Map<string, EgressAddress[]>();
  for (const r of addresses) {
    const list = byPool.get(r.pool_name) ?? [];
    list.push(toAddress(r));
    byPool.set(r.pool_name, list);
  }
  return pools.map((p) => ({ name: p.name, accounts: p.accounts, addresses: byPool.get(p.name) ?? [] }));
}

/**
 * Assigns the account a pool (null: back to the default), or, given a stream, that stream of the
 * account its own pool (null: back to the account's; docs/api-decisions.md, "Streams");
 * `account_not_found` or `pool_not_found` otherwise.
 */
export async function setAccountEgressPool(
  db: Database,
  accountId: string,
  pool: string | null,
  stream?: EmailType,
): Promise<'ok' | 'account_not_found' | 'pool_not_found'> {
  if (pool !== null) {
    const [exists] = await db`select 1 from egress_pools where name = ${pool}`;
    if (!exists) return 'pool_not_found';
  }
  // A pool dropped in between fails the foreign key: the operator runs the command again.
  const updated =
    stream === undefined
      ? await db`update accounts set egress_pool = ${pool} where id = ${accountId} returning id`
      : await db`update account_streams set egress_pool = ${pool} where account_id = ${accountId} and stream = ${stream} returning account_id`;
  return updated.length > 0 ? 'ok' : 'account_not_found';
}

/** The addresses an account of `pool` sends from: that pool's, or the `default` pool's for none (empty: the machine's own). */
export async function egressAddressesOf(db: Queryable, pool: string | null): Promise<EgressAddress[]> {
  const rows = await db`select ${addressColumns(db)} from egress_addresses where pool_name = ${pool ?? DEFAULT_POOL} order by address`;
  return rows.map(toAddress);
}
