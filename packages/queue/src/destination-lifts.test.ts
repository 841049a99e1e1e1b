import { testRedisPrefix } from '@mailer/testing';
import { openRedis, waitForRedis, type Redis } from './connection';
import { LIFT_TTL_MS, readDestinationLifts, requestDestinationLift } from './destination-lifts';

describe('destination lifts', () => {
  const prefix = testRedisPrefix();
  let redis: Redis;

  beforeAll(async () => {
    redis = openRedis({ url: 'redis://127.0.0.1:6379' }, 'producer');
    await waitForRedis(redis);
  });
  afterAll(async () => {
    await redis.del(`${prefix}:destination-lifts`);
    redis.disconnect();
  });

  it('reads back each destination with the latest time its lift was asked, for LIFT_TTL_MS', async () => {
    expect(await readDestinationLifts(redis, prefix)).toEqual(new Map());
    await requestDestinationLift(redis, prefix, 'mx.example.com', new Date(1_000));
    await requestDestinationLift(redis, prefix, 'mx.example.org', new Date(2_000));
    await requestDestinationLift(redis, prefix, 'mx.example.com', new Date(3_000));
    expect(await readDestinationLifts(redis, prefix)).toEqual(new Map([['mx.example.com', 3_000], ['mx.example.org', 2_000]]));
    const ttl = await redis.pttl(`${prefix}:destination-lifts`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LIFT_TTL_MS);
  });
});
