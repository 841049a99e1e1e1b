import { fitsAllowance } from '@mailer/domain';
import { openRedis, type Redis } from './connection';
import { WarmUpCounters } from './warm-up-counters';
import { testRedisPrefix } from '@mailer/testing';

describe('warm-up counters shared through Redis', () => {
  const redises: Redis[] = [];
  afterAll(() => redises.forEach((r) => r.disconnect()));
  /** Two daemons' counters under one REDIS_PREFIX, each on its own connection. */
  function twoDaemons() {
    const prefix = testRedisPrefix();
    const make = () => {
      const redis = openRedis({ url: 'redis://127.0.0.1:6379' }, 'worker');
      redises.push(redis);
      return new WarmUpCounters(redis, prefix, (error) => {
        throw error;
      });
    };
    return [make(), make()] as const;
  }
  const within = (allowance: number, count: number) => (used: number) => fitsAllowance(allowance, used, count);

  it("never lets two daemons taking at once past the day's allowance together", async () => {
    const [a, b] = twoDaemons();
    const key = { address: '127.0.0.2', provider: 'gmail', day: '2026-11-27' };
    const takes = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).take(key, 1, within(50, 1))));
    expect(takes.filter(Boolean)).toHaveLength(50);
    // Refused takes gave their count back: the day stays full, and nothing more fits.
    expect(await a.take(key, 1, within(50, 1))).toBe(false);
    expect(await b.take(key, 1, within(51, 1))).toBe(true);
  });

  it('counts each address, provider and day apart', async () => {
    const [a] = twoDaemons();
    const key = { address: '127.0.0.3', provider: 'yahoo', day: '2026-11-27' };
    expect(await a.take(key, 2, within(2, 2))).toBe(true);
    expect(await a.take(key, 1, within(2, 1))).toBe(false);
    expect(await a.take({ ...key, day: '2026-11-28' }, 1, within(2, 1))).toBe(true);
    expect(await a.take({ ...key, provider: 'gmail' }, 1, within(2, 1))).toBe(true);
    expect(await a.take({ ...key, address: '127.0.0.4' }, 1, within(2, 1))).toBe(true);
  });
});
