import { testRedisPrefix, waitUntil } from '@mailer/testing';
import { openRedis, type Redis } from './connection';
import { HOLDER_TTL_MS, SharedDestinationLimits } from './destination-limits';

describe('operator limits shared through Redis', () => {
  const redises: Redis[] = [];
  const daemons: SharedDestinationLimits[] = [];
  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.close()));
    redises.forEach((r) => r.disconnect());
  });
  /** Two daemons' views of one REDIS_PREFIX, each on its own connection, with a clock the test moves. */
  function twoDaemons() {
    const prefix = testRedisPrefix();
    let now = Date.now();
    const make = (role: 'worker' | 'producer' = 'worker') => {
      const redis = openRedis({ url: 'redis://127.0.0.1:6379' }, role);
      redises.push(redis);
      const daemon = new SharedDestinationLimits(redis, prefix, (error) => { throw error; }, () => now);
      daemons.push(daemon);
      return { daemon, redis };
    };
    return { a: make().daemon, b: make().daemon, make, prefix, advance: (ms: number) => (now += ms) };
  }

  it('holds `connections` across daemons, and gives a slot back on release', async () => {
    const { a, b } = twoDaemons();
    const rule = { pattern: '*.shared.test', connections: 2 };
    const first = await a.acquire(rule);
    const second = await b.acquire(rule);
    expect([first.granted, second.granted]).toEqual([true, true]);
    expect(await a.acquire(rule)).toMatchObject({ granted: false });
    expect(await b.acquire(rule)).toMatchObject({ granted: false });
    if (first.granted) first.release();
    // The release reaches Redis on the other daemon's connection: asked until it has.
    let regained = await b.acquire(rule);
    for (const deadline = Date.now() + 10_000; !regained.granted && Date.now() < deadline; regained = await b.acquire(rule)) await new Promise((r) => setTimeout(r, 20));
    expect(regained.granted).toBe(true);
  });

  it("gives a dead daemon's connection slots back once their holders expire", async () => {
    const { a, b, advance } = twoDaemons();
    const rule = { pattern: 'mx.dead.test', connections: 1 };
    expect((await a.acquire(rule)).granted).toBe(true);
    expect((await b.acquire(rule)).granted).toBe(false);
    advance(HOLDER_TTL_MS + 1);
    expect((await b.acquire(rule)).granted).toBe(true);
  });

  it('counts messagesPerMinute across daemons, and says when the minute ends', async () => {
    const { a, b } = twoDaemons();
    const rule = { pattern: 'mx.rate.test', messagesPerMinute: 3 };
    const grants = [await a.acquire(rule), await b.acquire(rule), await a.acquire(rule), await b.acquire(rule)];
    expect(grants.map((g) => g.granted)).toEqual([true, true, true, false]);
    const refused = grants[3]!;
    expect(refused.granted === false && refused.retryInMs > 0 && refused.retryInMs <= 60_000).toBe(true);
  });

  it("tightens a destination's limits for every daemon while a reply rule's action is in force, the latest replacing the one before", async () => {
    const { a, b } = twoDaemons();
    const destination = { pattern: 'mx.replied.test' };
    expect(await a.acquire(destination)).toMatchObject({ granted: true, connectionsLimited: false });
    await a.throttle(destination, { kind: 'rate', messagesPerMinute: 2 }, 60_000);
    await heard(b, destination.pattern);
    const grants = [await b.acquire(destination), await a.acquire(destination), await b.acquire(destination)];
    expect(grants.map((g) => g.granted)).toEqual([true, true, false]);
    expect(grants[2]).toMatchObject({ suspended: false });
    await b.throttle(destination, { kind: 'suspend' }, 60_000);
    await heard(a, destination.pattern);
    const refused = await a.acquire(destination);
    expect(refused).toMatchObject({ granted: false, suspended: true });
    expect(refused.granted === false && refused.retryInMs > 0 && refused.retryInMs <= 60_000).toBe(true);
    await a.throttle(destination, { kind: 'concurrency', connections: 1 }, 60_000);
    const held = await b.acquire(destination);
    expect(held).toMatchObject({ granted: true, connectionsLimited: true });
    expect(await a.acquire(destination)).toMatchObject({ granted: false, suspended: false });
  });

  it('asks Redis nothing for a destination without an operator rule or an action in force, once it listens', async () => {
    const { a, make } = twoDaemons();
    // A producer's connection refuses commands while it is down: any round trip would reach failOpen, which throws.
    const { daemon: quiet, redis } = make('producer');
    await listening(quiet);
    redises.splice(redises.indexOf(redis), 1);
    redis.disconnect();
    expect(await quiet.acquire({ pattern: 'mx.quiet.test' })).toMatchObject({ granted: true, connectionsLimited: false });
    // An operator's limit still asks.
    await expect(quiet.acquire({ pattern: 'mx.quiet.test', connections: 1 })).rejects.toThrow();
    await a.throttle({ pattern: 'mx.quiet.test' }, { kind: 'suspend' }, 60_000);
    await heard(quiet, 'mx.quiet.test');
  });

  it('an action announced while a daemon had lost its subscription is read from the index once it is back', async () => {
    const { a, b, make, prefix } = twoDaemons();
    const { daemon: cut, redis } = make();
    await listening(cut);
    await cutSubscriptions(redis, prefix);
    // Before the subscriptions are back (ioredis reconnects after 50 ms): the announcement goes to nobody.
    await a.throttle({ pattern: 'mx.missed.test' }, { kind: 'suspend' }, 60_000);
    for (const daemon of [cut, a, b]) await listening(daemon);
    expect(cut.asksRedisFor('mx.missed.test')).toBe(true);
    expect(await cut.acquire({ pattern: 'mx.missed.test' })).toMatchObject({ granted: false, suspended: true });
  });

  it('a daemon that starts while an action is in force reads it from the index; it lapses with the action', async () => {
    const { a, make, advance } = twoDaemons();
    await a.throttle({ pattern: 'mx.earlier.test' }, { kind: 'suspend' }, 60_000);
    const { daemon: later } = make();
    await listening(later);
    expect(later.asksRedisFor('mx.earlier.test')).toBe(true);
    expect(await later.acquire({ pattern: 'mx.earlier.test' })).toMatchObject({ granted: false, suspended: true });
    expect(later.asksRedisFor('mx.other.test')).toBe(false);
    advance(60_001);
    expect(later.asksRedisFor('mx.earlier.test')).toBe(false);
  });
});

/** Drops the connections of the prefix's subscriptions, as a Redis restart or a network cut would. */
async function cutSubscriptions(redis: Redis, prefix: string): Promise<void> {
  const clients = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).split('\n');
  const ids = clients.filter((c) => c.includes(` name=${prefix}:`)).map((c) => /\bid=(\d+)/.exec(c)![1]!);
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) await redis.call('CLIENT', 'KILL', 'ID', id);
}

/** Until the daemon listens: it then asks Redis nothing for a destination nobody throttled. */
async function listening(daemon: SharedDestinationLimits): Promise<void> {
  await waitUntil(() => !daemon.asksRedisFor('mx.nobody-throttled.test'), 'the subscription', 5_000, 10);
}

/** Until the daemon has heard of an action on the pattern (announcements arrive on a connection of their own). */
async function heard(daemon: SharedDestinationLimits, pattern: string): Promise<void> {
  await waitUntil(() => daemon.asksRedisFor(pattern), `the action on ${pattern}`, 5_000, 10);
  await listening(daemon);
}
