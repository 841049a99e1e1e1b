import { randomUUID } from 'node:crypto';
import type { Redis } from './connection';

/** Failed sign-ins from one address within the window that close the door to it for the same span. */
export const MAX_FAILED_AUTHS = 10;
export const AUTH_THROTTLE_WINDOW_MS = 10 * 60_000;

/** Whether an address is refused now, and for how much longer. */
export type ThrottleVerdict = { blocked: false } | { blocked: true; retryAfterMs: number };

/**
 * One script, so that parallel failures cannot overshoot: a failure while the address is blocked
 * is not counted and answers the ms left (KEYS[2] holds the end of the block, in the callers'
 * clock); otherwise failures older than the window are dropped, this one added, and the one that
 * reaches the bound ends the count and starts the block. Answers 0 when the failure was counted.
 */
const RECORD_FAILURE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local untilMs = tonumber(redis.call('GET', KEYS[2]) or '0')
if untilMs > now then return untilMs - now end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[4])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], now + window, 'PX', window)
else
  redis.call('PEXPIRE', KEYS[1], window)
end
return 0
`;

type ThrottleRedis = Redis & { mailerAuthFailure(failures: string, blocked: string, now: number, windowMs: number, max: number, member: string): Promise<number> };

/**
 * Password guessing (docs/api-decisions.md, "SMTP submission", "Operator console"): once an
 * address (a connectionSource: an IPv4 address or an IPv6 /64) has MAX_FAILED_AUTHS failed
 * sign-ins within AUTH_THROTTLE_WINDOW_MS it is refused for AUTH_THROTTLE_WINDOW_MS. Counted in
 * Redis under REDIS_PREFIX and `space` (`submission`, `console`), so every process shares the
 * count, and exactly the bound of failures is answered as such however many arrive at once. With
 * Redis away each process counts on its own (`onFallback` hears of each switch to it), so that
 * guessing stays bounded during an outage.
 */
export class AuthThrottle {
  private readonly redis: ThrottleRedis;
  private readonly local = new LocalFailures();
  private fallenBack = false;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly space: string,
    private readonly onFallback: (error: Error) => void,
    private readonly now: () => Date,
  ) {
    if (!('mailerAuthFailure' in redis)) redis.defineCommand('mailerAuthFailure', { numberOfKeys: 2, lua: RECORD_FAILURE });
    this.redis = redis as ThrottleRedis;
  }

  /** Whether `address` is refused now. */
  async check(address: string): Promise<ThrottleVerdict> {
    const now = this.now().getTime();
    try {
      const until = Number((await this.redis.get(this.key(address, 'blocked'))) ?? 0);
      this.fallenBack = false;
      return verdict(until - now);
    } catch (error) {
      this.fellBack(error as Error);
      return verdict(this.local.blockedUntil(address, now) - now);
    }
  }

  /** Counts a failed sign-in: `blocked` when the address already was, and the failure is to be answered as a refusal to it. */
  async recordFailure(address: string): Promise<ThrottleVerdict> {
    const now = this.now().getTime();
    try {
      const left = await this.redis.mailerAuthFailure(this.key(address, 'failures'), this.key(address, 'blocked'), now, AUTH_THROTTLE_WINDOW_MS, MAX_FAILED_AUTHS, `${now}:${randomUUID()}`);
      this.fallenBack = false;
      return verdict(left);
    } catch (error) {
      this.fellBack(error as Error);
      return verdict(this.local.recordFailure(address, now));
    }
  }

  private fellBack(error: Error): void {
    if (!this.fallenBack) this.onFallback(error);
    this.fallenBack = true;
  }

  private key(address: string, part: string): string {
    return `${this.prefix}:auth-throttle:${this.space}:${address}:${part}`;
  }
}

const verdict = (leftMs: number): ThrottleVerdict => (leftMs > 0 ? { blocked: true, retryAfterMs: leftMs } : { blocked: false });

/** The same rule as RECORD_FAILURE, in this process only: the fallback while Redis is away. */
class LocalFailures {
  private readonly failures = new Map<string, number[]>();
  private readonly blocks = new Map<string, number>();

  blockedUntil(address: string, now: number): number {
    const until = this.blocks.get(address) ?? 0;
    if (until <= now) this.blocks.delete(address);
    return until;
  }

  /** The ms left when `address` was blocked already (the failure not counted), else 0. */
  recordFailure(address: string, now: number): number {
    const until = this.blockedUntil(address, now);
    if (until > now) return until - now;
    const recent = (this.failures.get(address) ?? []).filter((at) => at > now - AUTH_THROTTLE_WINDOW_MS);
    recent.push(now);
    if (recent.length < MAX_FAILED_AUTHS) {
      this.failures.set(address, recent);
    } else {
      this.failures.delete(address);
      this.blocks.set(address, now + AUTH_THROTTLE_WINDOW_MS);
    }
    return 0;
  }
}
