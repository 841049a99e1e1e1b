import { testRedisPrefix } from '@mailer/testing';
import { deliverMessageJobId } from './catalog';
import { openRedis, waitForRedis, type Redis } from './connection';
import { createDeliveryQueue, type DeliveryQueue } from './producer';
import { reconcileOwedDeliveries } from './reconcile-owed-deliveries';

const NOW = new Date('2026-12-02T10:00:00.000Z');
const dueAt = new Date(NOW.getTime() + 60_000);

describe('the delivery queue producer', () => {
  let redis: Redis;
  let queue: DeliveryQueue;

  beforeAll(async () => {
    redis = openRedis({ url: 'redis://127.0.0.1:6379' }, 'producer');
    await waitForRedis(redis);
    queue = createDeliveryQueue(redis, testRedisPrefix());
  });
  afterAll(async () => {
    await queue.queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });

  it('adds the job owed to a message once, delayed until it is due, whatever the repeats', async () => {
    await queue.enqueue({ emailId: 'email_once', dueAt, accountId: 'account_a' }, NOW);
    await queue.enqueue({ emailId: 'email_once', dueAt, accountId: 'account_a' }, NOW);
    const job = await queue.queue.getJob(deliverMessageJobId('email_once', dueAt));
    expect(job?.data).toEqual({ emailIds: ['email_once'], accountId: 'account_a' });
    expect(job?.opts.delay).toBe(60_000);
    expect(await queue.queue.getDelayedCount()).toBe(1);
  });

  it("groups neighbours of one account due together into one job named after the first, and tells the missing ones", async () => {
    await queue.enqueueTogether(
      [
        { emailId: 'email_t1', dueAt, accountId: 'account_a' },
        { emailId: 'email_t2', dueAt, accountId: 'account_a' },
        { emailId: 'email_t3', dueAt, accountId: 'account_b' },
      ],
      NOW,
    );
    expect((await queue.queue.getJob(deliverMessageJobId('email_t1', dueAt)))?.data).toEqual({ emailIds: ['email_t1', 'email_t2'], accountId: 'account_a' });
    expect((await queue.queue.getJob(deliverMessageJobId('email_t3', dueAt)))?.data).toEqual({ emailIds: ['email_t3'], accountId: 'account_b' });
    const missing = await queue.missing([
      { emailId: 'email_t1', dueAt },
      { emailId: 'email_t2', dueAt },
      { emailId: 'email_t3', dueAt },
    ]);
    expect(missing).toEqual([{ emailId: 'email_t2', dueAt }]);
  });

  it('reconciles by adding a job of its own for each owed message Redis does not hold, and none twice', async () => {
    async function* owed() {
      yield [
        { emailId: 'email_once', dueAt },
        { emailId: 'email_lost', dueAt, accountId: 'account_c' },
      ];
    }
    expect(await reconcileOwedDeliveries(queue, owed(), NOW)).toBe(1);
    expect((await queue.queue.getJob(deliverMessageJobId('email_lost', dueAt)))?.data).toEqual({ emailIds: ['email_lost'], accountId: 'account_c' });
    expect(await reconcileOwedDeliveries(queue, owed(), NOW)).toBe(0);
  });
});
