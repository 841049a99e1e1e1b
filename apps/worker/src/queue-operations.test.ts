import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { changeQueue, type QueueChangeDependencies } from '@mailer/operations';
import { readDestinationSnapshots } from '@mailer/queue';
import { insertWebhookEndpoint, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import type { Daemon } from './daemon';
import { deferDeliveries, startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/** The operator's queue operations against a running daemon, a real SMTP sink and a real webhook receiver. */
let h: WorkerHarness;
let daemon: Daemon;
let setup: SendingSetup;
let sink: TestSmtpServer;
let hooks: WebhookReceiver;
let secret: string;
let ops: QueueChangeDependencies;

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', MAX_DELIVERY_AGE: '1h' });
  setup = await h.createSendingSetup({ domain: 'queue-ops.test' });
  h.dns.set('sink.test', [{ type: 'MX', exchange: 'mx.sink.test', priority: 10 }]);
  h.dns.set('mx.sink.test', [{ type: 'A', address: '127.0.0.61' }]);
  sink = await startTestSmtpServer({ host: '127.0.0.61', port: h.smtpPort });
  hooks = await startWebhookReceiver();
  secret = newWebhookSecret();
  await insertWebhookEndpoint(h.deps.db, {
    accountId: setup.accountId,
    url: hooks.url,
    events: ['email.failed'],
    description: null,
    secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret),
    now: new Date(),
  });
  ops = {
    db: h.deps.db,
    deliveryQueue: async () => h.deps.deliveryQueue,
    destinationSnapshots: () => readDestinationSnapshots(h.deps.producerRedis, h.config.redisPrefix),
  };
  daemon = h.startDaemon();
});
afterAll(async () => {
  await sink.close();
  await hooks.close();
  await h.close();
});

const deliveryOf = async (emailId: string) => {
  const [row] = await h.deps.db`select id, status, attempt_count, held_at, cause from deliveries where email_id = ${emailId}`;
  return row!;
};

async function until<T>(read: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('queue hold and release', () => {
  it('never attempts a held delivery, while the released one goes out', async () => {
    const held = await h.queueEmail(setup, { to: ['held@sink.test'], subject: 'held' });
    const released = await h.queueEmail(setup, { to: ['released@sink.test'], subject: 'released' });
    expect(await changeQueue(ops, 'hold', { emailId: held }, new Date())).toMatchObject({ changed: 1 });
    expect(await changeQueue(ops, 'hold', { emailId: released }, new Date())).toMatchObject({ changed: 1 });

    // The jobs a held message had in Redis, and the reconciler, find nothing owed.
    await h.runJob(held);
    await h.runJob(released);
    await daemon.reconcile();
    expect(await deliveryOf(held)).toMatchObject({ status: 'queued', attempt_count: 0, held_at: expect.any(Date) });
    expect(await deliveryOf(released)).toMatchObject({ status: 'queued', attempt_count: 0 });

    expect(await changeQueue(ops, 'release', { emailId: released }, new Date())).toMatchObject({ changed: 1, enqueued: true });
    await h.waitForStatus(released, ['accepted']);
    await h.runJob(held);
    await daemon.reconcile();

    expect(await deliveryOf(held)).toMatchObject({ status: 'queued', attempt_count: 0, held_at: expect.any(Date) });
    expect(await deliveryOf(released)).toMatchObject({ status: 'accepted', held_at: null });
    expect(sink.messages.flatMap((m) => m.to)).toEqual(['released@sink.test']);
  });

  it('ends a held delivery that reaches its maximum age, with its event', async () => {
    const old = await h.queueEmail(setup, { to: ['old@sink.test'], subject: 'old' });
    await changeQueue(ops, 'hold', { deliveryId: (await deliveryOf(old)).id }, new Date());
    // Accepted two hours ago: past MAX_DELIVERY_AGE (1h).
    await h.deps.db`update deliveries set created_at = now() - interval '2 hours' where email_id = ${old}`;
    await daemon.reconcile();
    expect(await deliveryOf(old)).toMatchObject({ status: 'failed', held_at: null, cause: { code: 'retries_exhausted', permanent: true } });
    expect(sink.messages.flatMap((m) => m.to)).not.toContain('old@sink.test');
  });
});

describe('queue delete', () => {
  it('ends a waiting delivery failed with canceled_by_operator, and the endpoint hears of it', async () => {
    const doomed = await h.queueEmail(setup, { to: ['doomed@sink.test'], subject: 'doomed' });
    const result = await changeQueue(ops, 'delete', { accountId: setup.accountId, domain: 'sink.test', emailId: doomed }, new Date());
    expect(result).toMatchObject({ action: 'delete', changed: 1 });
    expect(await deliveryOf(doomed)).toMatchObject({ status: 'failed', attempt_count: 0, cause: { code: 'canceled_by_operator', permanent: true } });
    const [event] = await h.deps.db`select type, cause from events where email_id = ${doomed} and type = 'failed'`;
    expect(event).toMatchObject({ cause: { code: 'canceled_by_operator' } });

    const hook = await until(() => hooks.received.find((r) => r.body.includes(doomed)));
    expect(new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).toMatchObject({
      type: 'email.failed',
      data: { email_id: doomed, recipient: 'doomed@sink.test', status: 'failed', cause: { code: 'canceled_by_operator', permanent: true } },
    });
    await h.runJob(doomed);
    expect(sink.messages.flatMap((m) => m.to)).not.toContain('doomed@sink.test');
  });

  it('changes nothing without a selection, and nothing ended or in flight', async () => {
    await expect(changeQueue(ops, 'delete', {}, new Date())).rejects.toMatchObject({ code: 'validation_error' });
    await expect(changeQueue(ops, 'delete', { emailId: 'nope' }, new Date())).rejects.toMatchObject({ code: 'validation_error' });
    await expect(changeQueue(ops, 'hold', { destination: 'd_000000000000' }, new Date())).rejects.toMatchObject({ code: 'destination_not_found' });
  });
});

describe('queue flush', () => {
  it('attempts a deferred delivery now instead of at its retry', async () => {
    const later = await h.queueEmail(setup, { to: ['later@sink.test'], subject: 'later' });
    await deferDeliveries(h.deps.db, [later], new Date(Date.now() + 3600_000));
    expect(await changeQueue(ops, 'flush', { emailId: later }, new Date())).toMatchObject({ changed: 1, enqueued: true });
    await h.waitForStatus(later, ['accepted']);
    expect(sink.messages.flatMap((m) => m.to)).toContain('later@sink.test');
  });
});
