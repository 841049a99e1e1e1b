import { DEFAULT_POOL, fitsAllowance, nextUtcDay, utcDay, warmUpAllowance } from '@mailer/domain';
import { egressAddressesOf, type Database, type EgressAddress } from '@mailer/operations';
import type { WarmUpCounters } from '@mailer/queue';
import type { EgressSource } from './smtp-session';

/** A pool's addresses are read again this often: an address added or an account moved is followed within it. */
export const POOL_CACHE_MS = 10_000;

/** Where one transaction leaves from. */
export type EgressChoice =
  /** An address of the account's pool, with its HELO name. */
  | { kind: 'source'; pool: string; source: EgressSource }
  /** No pool applies (none assigned and no `default` pool, or a pool without addresses): the machine's own address and SMTP_HELO_NAME. */
  | { kind: 'machine' }
  /** Every address of the pool used up its warm-up allowance for the provider today: the transaction waits until `until`. */
  | { kind: 'wait'; pool: string; until: Date };

/**
 * Picks the source address of each transaction from the account's egress pool
 * (docs/api-decisions.md, "Providers and egress pools"): the pool's addresses in turn, skipping
 * those whose warm-up allowance for the destination's provider is used up today; the count is
 * shared by every daemon (WarmUpCounters). Mail to a destination of no provider is not capped.
 */
export class EgressPools {
  private readonly cache = new Map<string, { addresses: Promise<EgressAddress[]>; expires: number }>();
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly counters: WarmUpCounters,
    /** WARMUP_SCHEDULE. */
    private readonly schedule: readonly number[],
  ) {}

  /** `pool`: the account's (null: the default); `count`: the transaction's recipients. */
  async choose(pool: string | null, provider: string | null, count: number, now: Date): Promise<EgressChoice> {
    const name = pool ?? DEFAULT_POOL;
    const addresses = await this.addresses(name, now.getTime());
    if (addresses.length === 0) return { kind: 'machine' };
    const first = this.turns.get(name) ?? 0;
    this.turns.set(name, (first + 1) % addresses.length);
    const day = utcDay(now);
    for (let i = 0; i < addresses.length; i++) {
      const address = addresses[(first + i) % addresses.length]!;
      const allowance = provider === null ? null : warmUpAllowance(this.schedule, address.warmUpStartedOn, now);
      const fits = allowance === null || (await this.counters.take({ address: address.address, provider: provider!, day }, count, (used) => fitsAllowance(allowance, used, count)));
      if (fits) return { kind: 'source', pool: name, source: { address: address.address, heloName: address.heloName } };
    }
    return { kind: 'wait', pool: name, until: nextUtcDay(now) };
  }

  private addresses(pool: string, now: number): Promise<EgressAddress[]> {
    const hit = this.cache.get(pool);
    if (hit && hit.expires > now) return hit.addresses;
    const addresses = egressAddressesOf(this.db, pool);
    const entry = { addresses, expires: now + POOL_CACHE_MS };
    this.cache.set(pool, entry);
    // A failed read is not kept: the next transaction reads again.
    addresses.catch(() => this.cache.get(pool) === entry && this.cache.delete(pool));
    return addresses;
  }
}
