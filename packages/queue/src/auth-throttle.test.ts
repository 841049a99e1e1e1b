import { testRedisPrefix } from '@mailer/testing';
import { AUTH_THROTTLE_WINDOW_MS, AuthThrottle, MAX_FAILED_AUTHS } from './auth-throttle';
import { openRedis, waitForRedis, type Redis } from './connection';

const redises: Redis[] = [];
const redisAt = (url: string) => {
  const redis = openRedis({ url }, 'producer');
  redis.on('error', () => undefined);
  redises.push(redis);
  return redis;
};
/** A connection to the test Redis, once it is up: the producer connection fails fast while it opens. */
const liveRedis = async () => {
  const redis = redisAt('redis://127.0.0.1:6379');
  await waitForRedis(redis);
  return redis;
};
afterAll(() => redises.forEach((redis) => redis.disconnect()));

const clock = (start = Date.parse('2026-11-27T10:00:00.000Z')) => {
  let at = start;
  return { now: () => new Date(at), advance: (ms: number) => (at += ms) };
};
const noFallback = (error: Error) => {
  throw error;
};

describe('AuthThrottle', () => {
  it('answers exactly the bound of failures arriving at once as failures, the rest as refusals, shared by every throttle of the prefix', async () => {
    const prefix = testRedisPrefix();
    const time = clock();
    const [a, b] = await Promise.all([0, 1].map(async () => new AuthThrottle(await liveRedis(), prefix, 'submission', noFallback, time.now)));
    const verdicts = await Promise.all(Array.from({ length: 3 * MAX_FAILED_AUTHS }, (_, i) => (i % 2 ? a : b)!.recordFailure('192.0.2.1')));
    expect(verdicts.filter((v) => !v.blocked)).toHaveLength(MAX_FAILED_AUTHS);
    expect(await a!.check('192.0.2.1')).toEqual({ blocked: true, retryAfterMs: AUTH_THROTTLE_WINDOW_MS });
    expect(await b!.check('192.0.2.2')).toEqual({ blocked: false });
    // Another key space (the console's) counts apart.
    expect(await new AuthThrottle(redises[0]!, prefix, 'console', noFallback, time.now).check('192.0.2.1')).toEqual({ blocked: false });
    time.advance(AUTH_THROTTLE_WINDOW_MS - 1);
    expect((await b!.check('192.0.2.1')).blocked).toBe(true);
    time.advance(1);
    expect(await b!.check('192.0.2.1')).toEqual({ blocked: false });
  });

  it('forgets failures older than the window', async () => {
    const time = clock();
    const throttle = new AuthThrottle(await liveRedis(), testRedisPrefix(), 'submission', noFallback, time.now);
    for (let i = 0; i < MAX_FAILED_AUTHS - 1; i++) await throttle.recordFailure('192.0.2.1');
    time.advance(AUTH_THROTTLE_WINDOW_MS);
    expect(await throttle.recordFailure('192.0.2.1')).toEqual({ blocked: false });
    expect(await throttle.check('192.0.2.1')).toEqual({ blocked: false });
  });

  it('counts in the process while Redis is unreachable, saying so once', async () => {
    const time = clock();
    const fallbacks: Error[] = [];
    const throttle = new AuthThrottle(redisAt('redis://127.0.0.1:1'), testRedisPrefix(), 'submission', (error) => fallbacks.push(error), time.now);
    const verdicts = await Promise.all(Array.from({ length: MAX_FAILED_AUTHS + 3 }, () => throttle.recordFailure('192.0.2.1')));
    expect(verdicts.filter((v) => !v.blocked)).toHaveLength(MAX_FAILED_AUTHS);
    expect((await throttle.check('192.0.2.1')).blocked).toBe(true);
    expect(await throttle.check('192.0.2.2')).toEqual({ blocked: false });
    expect(fallbacks).toHaveLength(1);
    time.advance(AUTH_THROTTLE_WINDOW_MS);
    expect(await throttle.check('192.0.2.1')).toEqual({ blocked: false });
  });
});

