import { randomUUID } from 'node:crypto';
import type { DestinationLimitRule, ReplyAction } from '@mailer/domain';
import type { Redis } from './connection';

/**
 * One script so that checking and taking a slot is atomic across daemons. A reply rule's
 * action in force (KEYS[3], written by throttle) comes first: a suspension refuses at once
 * (answering its milliseconds left), a lowered concurrency or rate tightens the limits given.
 * Then expired holders are dropped, the connection count and this minute's message count are
 * checked, and only if both have room is the holder added and the minute counted. Answers
 * {0, connections applied (0: none)} when granted, {1, 0} when the connections are all held,
 * {2, ms until the minute ends} when the minute is used up, {3, ms left} when suspended.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local connections = tonumber(ARGV[3])
local perMinute = tonumber(ARGV[4])
local throttle = redis.call('HMGET', KEYS[3], 'suspend', 'connections', 'perMinute')
if throttle[1] then return {3, math.max(1, redis.call('PTTL', KEYS[3]))} end
if throttle[2] and (connections == 0 or tonumber(throttle[2]) < connections) then connections = tonumber(throttle[2]) end
if throttle[3] and (perMinute == 0 or tonumber(throttle[3]) < perMinute) then perMinute = tonumber(throttle[3]) end
if connections > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= connections then return {1, 0} end
end
if perMinute > 0 then
  if tonumber(redis.call('GET', KEYS[2]) or '0') >= perMinute then return {2, tonumber(ARGV[6])} end
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], 120000)
end
if connections > 0 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[5])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return {0, connections}
`;

type LimitsRedis = Redis & {
  mailerDestinationAcquire(
    holders: string,
    minute: string,
    throttle: string,
    now: number,
    holdMs: number,
    connections: number,
    perMinute: number,
    holder: string,
    untilNextMinute: number,
  ): Promise<[number, number]>;
};

/**
 * A grant, with whether a connection count was applied (its transaction then keeps its
 * connection to itself); or a refusal, `suspended` when a reply rule suspended the destination.
 */
export type SharedGrant = { granted: true; connectionsLimited: boolean; release(): void } | { granted: false; retryInMs: number; suspended: boolean };

/**
 * The limits a destination shares: an operator rule's (keyed by its pattern), or for a
 * destination without one its own key (its MX host set) and no limits but a reply rule's.
 */
export type SharedLimits = Pick<DestinationLimitRule, 'pattern' | 'connections' | 'messagesPerMinute'>;

/** How long a holder lasts without renewal: a killed daemon's connection slots come back after it. */
export const HOLDER_TTL_MS = 60_000;
/** A destination whose connections are all held elsewhere looks again this much later. */
const CONNECTIONS_FULL_RETRY_MS = 250;

/** A grant with nothing to hold or give back. */
const UNLIMITED: SharedGrant = { granted: true, connectionsLimited: false, release: () => undefined };

/**
 * An operator rule's limits, and the reply rules' actions, held in Redis under REDIS_PREFIX, so
 * that every daemon process shares them (docs/api-decisions.md, "Scheduling", "Reply rules"):
 * `connections` as a semaphore of expiring holders (renewed while held), `messagesPerMinute` as
 * a counter per clock minute, an action as a hash that expires with it. Redis being away
 * grants (`failOpen`): delivery goes on within each daemon's own limits.
 *
 * Each action is also announced on a channel, and listed in an index, so that every daemon
 * knows which destinations have one in force: a destination with neither an operator rule nor
 * an action takes no round trip. Until the subscription is ready, and whenever it is lost, every
 * transaction asks Redis as if an action might be in force.
 */
export class SharedDestinationLimits {
  private readonly redis: LimitsRedis;
  private readonly subscriber: Redis;
  /** Patterns with an action in force, as this daemon heard of them: pattern → until (its clock); kept longest when heard twice. */
  private readonly actions = new Map<string, number>();
  /** Connections the subscription had, counted as each ends. */
  private connection = 0;
  /**
   * The connection on which the subscription was up when the index was read: while it is the current one,
   * `actions` holds every action in force (a read begun on an earlier connection proves nothing of it).
   */
  private listenedOn = -1;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly failOpen: (error: Error) => void,
    private readonly now: () => number = Date.now,
  ) {
    if (!('mailerDestinationAcquire' in redis)) redis.defineCommand('mailerDestinationAcquire', { numberOfKeys: 3, lua: ACQUIRE });
    this.redis = redis as LimitsRedis;
    // Named, so that an operator's CLIENT LIST tells the subscription apart.
    this.subscriber = redis.duplicate({ connectionName: this.actionsKey() });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('close', () => this.connection++);
    this.subscriber.on('ready', () => void this.listen());
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        const { pattern, durationMs } = JSON.parse(message) as { pattern: unknown; durationMs: unknown };
        if (typeof pattern === 'string' && typeof durationMs === 'number') this.heard(pattern, durationMs);
      } catch {
        // Not an announcement of ours: nothing to hear.
      }
    });
  }

  /** Whether `acquire` would ask Redis for a destination without an operator rule: not listening, or an action in force on it. */
  asksRedisFor(pattern: string): boolean {
    return !this.unlimited({ pattern });
  }

  /**
   * Stops following the actions (the daemon closes); resolves once an open subscription's
   * connection has ended (at once when Redis is away: there is none to wait for).
   */
  async close(): Promise<void> {
    this.connection++;
    const open = this.subscriber.status === 'connect' || this.subscriber.status === 'ready';
    const ended = open ? new Promise<void>((resolve) => this.subscriber.once('end', () => resolve())) : undefined;
    this.subscriber.disconnect();
    await ended;
  }

  /** Subscribes, then reads the actions already in force: one announced meanwhile is heard either way. */
  private async listen(): Promise<void> {
    const connection = this.connection;
    try {
      await this.subscriber.subscribe(this.actionsKey());
      const patterns = await this.redis.zrangebyscore(this.actionsKey(), this.now(), '+inf');
      const left = patterns.length === 0 ? [] : ((await this.redis.pipeline(patterns.map((p) => ['pttl', this.key({ pattern: p }, 'throttle')])).exec()) ?? []);
      patterns.forEach((pattern, i) => {
        const [error, ms] = left[i] ?? [new Error('no reply')];
        if (!error && Number(ms) > 0) this.heard(pattern, Number(ms));
      });
      // A read begun on an earlier connection must not undo a later one's.
      if (connection === this.connection) this.listenedOn = connection;
    } catch {
      // Not listening: every transaction asks Redis until the subscription is ready again.
    }
  }

  private heard(pattern: string, durationMs: number): void {
    this.actions.set(pattern, Math.max(this.actions.get(pattern) ?? 0, this.now() + durationMs));
  }

  /** Neither an operator's limit nor, as far as this listening daemon knows, an action in force. */
  private unlimited(rule: SharedLimits): boolean {
    if (this.listenedOn !== this.connection || rule.connections || rule.messagesPerMinute) return false;
    const until = this.actions.get(rule.pattern);
    if (until === undefined) return true;
    if (until > this.now()) return false;
    this.actions.delete(rule.pattern);
    return true;
  }

  async acquire(rule: SharedLimits): Promise<SharedGrant> {
    if (this.unlimited(rule)) return UNLIMITED;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const holders = this.key(rule, 'connections');
    const holder = randomUUID();
    let status: number;
    let value: number;
    try {
      [status, value] = await this.redis.mailerDestinationAcquire(
        holders,
        this.key(rule, `minute:${minute}`),
        this.key(rule, 'throttle'),
        now,
        HOLDER_TTL_MS,
        rule.connections ?? 0,
        rule.messagesPerMinute ?? 0,
        holder,
        (minute + 1) * 60_000 - now,
      );
    } catch (error) {
      this.failOpen(error as Error);
      return UNLIMITED;
    }
    if (status === 1) return { granted: false, retryInMs: CONNECTIONS_FULL_RETRY_MS, suspended: false };
    if (status !== 0) return { granted: false, retryInMs: value, suspended: status === 3 };
    if (value === 0) return UNLIMITED;
    const renew = setInterval(() => {
      this.redis.zadd(holders, 'XX', this.now() + HOLDER_TTL_MS, holder).catch(() => undefined);
    }, HOLDER_TTL_MS / 3);
    renew.unref();
    return {
      granted: true,
      connectionsLimited: true,
      release: () => {
        clearInterval(renew);
        this.redis.zrem(holders, holder).catch(() => undefined);
      },
    };
  }

  /**
   * Puts a reply rule's action in force for `durationMs` on the limits every daemon shares for
   * the destination (docs/api-decisions.md, "Reply rules"); it replaces the action in force, and
   * is announced to every daemon. Redis being away is reported to `failOpen` and the action stays
   * with this daemon.
   */
  async throttle(rule: SharedLimits, action: ReplyAction, durationMs: number): Promise<void> {
    const key = this.key(rule, 'throttle');
    const fields =
      action.kind === 'suspend' ? { suspend: 1 } : action.kind === 'concurrency' ? { connections: action.connections } : { perMinute: action.messagesPerMinute };
    try {
      const now = this.now();
      await this.redis
        .multi()
        .del(key)
        .hset(key, fields)
        .pexpire(key, durationMs)
        .zremrangebyscore(this.actionsKey(), '-inf', now)
        .zadd(this.actionsKey(), now + durationMs, rule.pattern)
        .publish(this.actionsKey(), JSON.stringify({ pattern: rule.pattern, durationMs }))
        .exec();
    } catch (error) {
      this.failOpen(error as Error);
    }
  }

  /** The index of the patterns with an action (scored by its end), and the channel announcing each. */
  private actionsKey(): string {
    return `${this.prefix}:destination-limits-actions`;
  }

  private key(rule: Pick<SharedLimits, 'pattern'>, part: string): string {
    return `${this.prefix}:destination-limits:${rule.pattern}:${part}`;
  }
}
