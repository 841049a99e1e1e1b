import { loadConfig } from '@mailer/config';
import { destinationKey } from '@mailer/domain';
import { startTestSmtpServer, TransactionGauge, type TestSmtpServer } from '@mailer/testing';
import { closeContainer, createContainer, type WorkerDependencies } from '../container';
import { deliverMessage, startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';

/**
 * Reply-driven throttling (docs/api-decisions.md, "Reply rules"), on loopback peers answering
 * the big providers' well-known throttling replies, with two daemons sharing one Redis prefix:
 * the shipped rule the reply matches lowers the destination's concurrency, or suspends it, for
 * every daemon; each action is logged and counted.
 */
let h: WorkerHarness;
let second: WorkerDependencies;
let setup: SendingSetup;
beforeAll(async () => {
  h = await startWorkerHarness({ SMTP_POOL_IDLE: '10s' });
  second = createContainer(loadConfig(h.env));
  setup = await h.createSendingSetup({ domain: 'throttled-sender.test' });
});
afterAll(async () => {
  await closeContainer(second);
  await h.close();
});

/** A peer at `address` as the only MX of `domain`, each transaction held 100 ms in DATA so that transactions overlap. */
async function peerFor(domain: string, address: string, rcpt: (address: string) => string | undefined, transactions: TransactionGauge): Promise<TestSmtpServer> {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
  h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  return startTestSmtpServer({ host: address, port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 100 }, transactions, rcpt });
}

/** 12 one-recipient messages to `domain`, delivered by both daemons at once. */
async function burst(domain: string): Promise<void> {
  const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => h.queueEmail(setup, { to: [`u${i}@${domain}`] })));
  await Promise.all(ids.map((id, i) => deliverMessage(i % 2 ? second : h.deps, id)));
  for (const id of ids) expect((await h.readEmail(id)).email.status).toBe('accepted');
}

const applied = (rule: string) => h.logLines().filter((l) => l.message === 'reply rule applied' && l.rule === rule);
const counted = async (rule: string, action: string) =>
  (await h.deps.metrics.replyRuleActions.get()).values.find((v) => v.labels.rule === rule && v.labels.action === action)?.value ?? 0;
const throttleOf = (mx: string) => h.deps.producerRedis.hgetall(`${h.env.REDIS_PREFIX}:destination-limits:${destinationKey([mx])}:throttle`);

describe('reply rules', () => {
  it("drops a destination's concurrency to 1 for every daemon after Yahoo's [TSS04] reply, logged and counted", async () => {
    // Without a reply rule in force, both daemons overlap their transactions to a destination.
    const control = new TransactionGauge();
    const unthrottled = await peerFor('calm.test', '127.0.0.21', () => undefined, control);
    await burst('calm.test');
    expect(control.peak()).toBeGreaterThan(1);
    await unthrottled.close();

    const transactions = new TransactionGauge();
    const ts04 = '421 4.7.0 [TSS04] Messages from 127.0.0.1 temporarily deferred due to unexpected volume or user complaints';
    const peer = await peerFor('ymail.test', '127.0.0.22', (address) => (address.startsWith('first') ? ts04 : undefined), transactions);
    const first = await h.queueEmail(setup, { to: ['first@ymail.test'] });
    await h.runJob(first);
    expect((await h.readEmail(first)).deliveries[0]).toMatchObject({ status: 'deferred', attemptCount: 1 });
    expect(applied('yahoo-ts04')).toEqual([
      expect.objectContaining({ level: 'warn', action: { kind: 'concurrency', connections: 1 }, destination: 'mx.ymail.test', reply_code: 421 }),
    ]);
    expect(await counted('yahoo-ts04', 'concurrency')).toBe(1);
    expect(await throttleOf('mx.ymail.test')).toEqual({ connections: '1' });

    await burst('ymail.test');
    expect(transactions.peak()).toBe(1);
    // Under a connection count a connection carries one transaction (the other daemon could not count an idle one).
    expect(peer.connections()).toBe(13);
    await peer.close();
  });

  it("suspends a destination after Microsoft's S3150 block-list reply: the next mail to it waits, deferred, without a connection", async () => {
    const transactions = new TransactionGauge();
    const s3150 = "550 5.7.1 Unfortunately, messages from [127.0.0.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150)";
    const peer = await peerFor('hotmail-like.test', '127.0.0.23', (address) => (address.startsWith('first') ? s3150 : undefined), transactions);
    const first = await h.queueEmail(setup, { to: ['first@hotmail-like.test'] });
    await h.runJob(first);
    expect((await h.readEmail(first)).deliveries[0]).toMatchObject({ status: 'bounced', cause: { code: 'message_rejected' } });
    expect(await counted('microsoft-s3150', 'suspend')).toBe(1);
    expect(await throttleOf('mx.hotmail-like.test')).toEqual({ suspend: '1' });

    // Either daemon: the first through its own state, the other through Redis.
    const connections = peer.connections();
    for (const deps of [h.deps, second]) {
      const next = await h.queueEmail(setup, { to: ['next@hotmail-like.test'] });
      await deliverMessage(deps, next);
      const stored = await h.readEmail(next);
      expect(stored.deliveries[0]).toMatchObject({ status: 'deferred', cause: { code: 'rate_limited_by_recipient' }, attemptCount: 1 });
    }
    expect(peer.connections()).toBe(connections);
    expect(h.deps.scheduler.snapshot().find((d) => d.destination === destinationKey(['mx.hotmail-like.test']))?.suspendedUntil).toEqual(expect.any(String));
    await peer.close();
  });
});
