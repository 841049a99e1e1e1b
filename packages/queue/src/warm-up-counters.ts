import type { Redis } from './connection';

/** A day's counter outlives its UTC day by this much, for a daemon whose clock runs a little behind. */
const COUNTER_TTL_MS = 2 * 86_400_000;

/**
 * Messages each egress address sent to each provider per UTC day, counted in Redis under
 * REDIS_PREFIX so that every daemon shares them (docs/api-decisions.md, "Providers and egress
 * pools"). Whether a count fits is the caller's rule (fitsAllowance): a take adds first, then
 * gives back what did not fit, so that the count never lets two daemons past the cap together
 * (a give-back under way may refuse another take at the edge, never admit one too many). Redis
 * being away grants (`failOpen`), as the shared destination limits do.
 */
export class WarmUpCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly failOpen: (error: Error) => void,
  ) {}

  /** Counts `count` messages from `address` to `provider` on `day` when `fits(usedBefore)`; false (nothing counted) otherwise. */
  async take(key: { address: string; provider: string; day: string }, count: number, fits: (usedBefore: number) => boolean): Promise<boolean> {
    const counter = `${this.prefix}:warm-up:${key.day}:${key.provider}:${key.address}`;
    let total: number;
    try {
      const [[incrError, counted], [expireError]] = (await this.redis.multi().incrby(counter, count).pexpire(counter, COUNTER_TTL_MS).exec()) as [[Error | null, unknown], [Error | null, unknown]];
      if (incrError ?? expireError) throw incrError ?? expireError;
      total = counted as number;
    } catch (error) {
      this.failOpen(error as Error);
      return true;
    }
    if (fits(total - count)) return true;
    // Lost, it leaves the day's count too high: a refusal too many, never a message too many.
    await this.redis.decrby(counter, count).catch(() => undefined);
    return false;
  }
}
