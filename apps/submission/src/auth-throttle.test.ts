import { AUTH_THROTTLE_WINDOW_MS, AuthThrottle, MAX_FAILED_AUTHS, openRedis, waitForRedis, type Redis } from '@mailer/queue';
import { testRedisPrefix } from '@mailer/testing';
import { SUBMISSION_USER } from './authenticate';
import { startSubmissionHarness, type SubmissionHarness } from './testing/submission-harness';

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

describe('the listener under parallel password guessing', () => {
  let h: SubmissionHarness;
  beforeAll(async () => {
    h = await startSubmissionHarness();
  });
  afterAll(() => h.close());

  const wrongAuth = `AUTH PLAIN ${Buffer.from(`\0${SUBMISSION_USER}\0svc_live_${'g'.repeat(40)}`).toString('base64')}`;
  const sessionsFrom = (harness: SubmissionHarness, localAddress: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const { session } = await harness.raw({ localAddress });
        await session.command('EHLO client.test');
        return session;
      }),
    );

  it('answers exactly the bound of 535s to wrong keys sent at once, then 421 4.7.0', async () => {
    const sessions = await sessionsFrom(h, '127.0.0.8', MAX_FAILED_AUTHS + 5);
    const replies = await Promise.all(sessions.map((session) => session.command(wrongAuth)));
    expect(replies.filter((reply) => reply.startsWith('535 5.7.8 '))).toHaveLength(MAX_FAILED_AUTHS);
    expect(replies.filter((reply) => reply.startsWith('421 4.7.0 '))).toHaveLength(5);
    sessions.forEach((session) => session.close());
  });

  it('shares the count between two listener processes', async () => {
    const other = await startSubmissionHarness({ DATABASE_URL: h.config.databaseUrl, REDIS_PREFIX: h.config.redisPrefix });
    try {
      const half = MAX_FAILED_AUTHS / 2;
      for (const harness of [h, other]) {
        for (const session of await sessionsFrom(harness, '127.0.0.9', half)) {
          expect(await session.command(wrongAuth)).toMatch(/^535 5\.7\.8 /);
          session.close();
        }
      }
      for (const harness of [h, other]) expect((await harness.raw({ localAddress: '127.0.0.9' })).greeting).toMatch(/^421 4\.7\.0 /);
    } finally {
      await other.close();
    }
  });
});
