import { randomUUID } from 'node:crypto';
import type { DestinationLimitRule } from '@mailer/domain';
import type { Redis } from './connection';

/**
 * One script so that checking and taking a slot is atomic across daemons: expired holders
 * are dropped, then the connection count and this minute's message count are checked,
 * and only if both have room is the holder added and the minute counted. Answers 0 when
 * granted, -1 when the connections are all held, else the milliseconds until the minute ends.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local connections = tonumber(ARGV[3])
local perMinute = tonumber(ARGV[4])
if connections > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= connections then return -1 end
end
if perMinute > 0 then
  if tonumber(redis.call('GET', KEYS[2]) or '0') >= perMinute then return tonumber(ARGV[6]) end
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], 120000)
end
if connections > 0 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[5])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return 0
`;

type LimitsRedis = Redis & {
  mailerDestinationAcquire(holders: string, minute: string, now: number, holdMs: number, connections: number, perMinute: number, holder: string, untilNextMinute: number): Promise<number>;
};

export type SharedGrant = { granted: true; release(): void } | { granted: false; retryInMs: number };

/** How long a holder lasts without renewal: a killed daemon's connection slots come back after it. */
export const HOLDER_TTL_MS = 60_000;
/** A destination whose connections are all held elsewhere looks again this much later. */
const CONNECTIONS_FULL_RETRY_MS = 250;

/**
 * An operator rule's limits held in Redis under REDIS_PREFIX, so that every daemon process
 * shares them (docs/api-decisions.md, "Scheduling"): `connections` as a semaphore of expiring
 * holders (renewed while held), `messagesPerMinute` as a counter per clock minute. Redis
 * being away grants (`failOpen`): delivery goes on within each daemon's own limits.
 */
export class SharedDestinationLimits {
  private readonly redis: LimitsRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly failOpen: (error: Error) => void,
    private readonly now: () => number = Date.now,
  ) {
    if (!('mailerDestinationAcquire' in redis)) redis.defineCommand('mailerDestinationAcquire', { numberOfKeys: 2, lua: ACQUIRE });
    this.redis = redis as LimitsRedis;
  }

  /** Whether a rule has anything to share; rules with only `messagesPerConnection` never touch Redis. */
  static shares(rule: DestinationLimitRule | undefined): rule is DestinationLimitRule {
    return rule?.connections !== undefined || rule?.messagesPerMinute !== undefined;
  }

  async acquire(rule: DestinationLimitRule): Promise<SharedGrant> {
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const holders = this.key(rule, 'connections');
    const holder = randomUUID();
    let answer: number;
    try {
      answer = await this.redis.mailerDestinationAcquire(
        holders,
        this.key(rule, `minute:${minute}`),
        now,
        HOLDER_TTL_MS,
        rule.connections ?? 0,
        rule.messagesPerMinute ?? 0,
        holder,
        (minute + 1) * 60_000 - now,
      );
    } catch (error) {
      this.failOpen(error as Error);
      return { granted: true, release: () => undefined };
    }
    if (answer === -1) return { granted: false, retryInMs: CONNECTIONS_FULL_RETRY_MS };
    if (answer > 0) return { granted: false, retryInMs: answer };
    if (rule.connections === undefined) return { granted: true, release: () => undefined };
    const renew = setInterval(() => {
      this.redis.zadd(holders, 'XX', this.now() + HOLDER_TTL_MS, holder).catch(() => undefined);
    }, HOLDER_TTL_MS / 3);
    renew.unref();
    return {
      granted: true,
      release: () => {
        clearInterval(renew);
        this.redis.zrem(holders, holder).catch(() => undefined);
      },
    };
  }

  private key(rule: DestinationLimitRule, part: string): string {
    return `${this.prefix}:destination-limits:${rule.pattern}:${part}`;
  }
}
