import { Webhook } from 'standardwebhooks';
import { updateWebhookEndpoint } from '@mailer/db';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { redeliverWebhook, redeliverWebhookDelivery, sendTestWebhook } from '@mailer/operations';
import { insertWebhookEndpoint, startWebhookReceiver, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { startWebhookSender, type WebhookSender } from './webhook-sender';

/**
 * `webhook test` and `webhook redeliver` (docs/api-decisions.md, "Queue operations") and the
 * console's redelivery they share, sent by a real sender to a real receiver.
 */
let h: WorkerHarness;
let sender: WebhookSender;
let setup: SendingSetup;
let hooks: WebhookReceiver;

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms' });
  sender = startWebhookSender(h.deps);
  setup = await h.createSendingSetup({ domain: 'operator-hooks.test' });
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await sender.stop();
  await hooks.close();
  await h.close();
});

async function endpoint() {
  const secret = newWebhookSecret();
  const created = await insertWebhookEndpoint(h.deps.db, {
    accountId: setup.accountId,
    url: hooks.url,
    // Subscribed to nothing a test event is: it is sent all the same.
    events: ['domain.status_changed'],
    description: null,
    secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret),
    now: new Date(),
  });
  return { endpoint: created, secret };
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliveryStatus = async (id: string) => {
  const [row] = await h.deps.db`select status, attempt_count from webhook_deliveries where id = ${id}`;
  return row as { status: string; attempt_count: number };
};

describe('webhook test and redeliver', () => {
  it('sends a signed test event, and once it has failed for good, sends it again on redelivery with the same webhook-id', async () => {
    const { endpoint: hook, secret } = await endpoint();
    hooks.status = 500;
    const queued = await sendTestWebhook(h.deps.db, hook.id, new Date());
    expect(queued).toEqual({ webhook_id: hook.id, event_id: expect.stringMatching(/^evt_/), delivery_id: expect.stringMatching(/^whd_/) });

    // One attempt and one retry (WEBHOOK_RETRY_SCHEDULE), both refused: failed.
    await until(async () => ((await deliveryStatus(queued.delivery_id)).status === 'failed' ? true : undefined));
    expect(await deliveryStatus(queued.delivery_id)).toEqual({ status: 'failed', attempt_count: 2 });
    const [first] = hooks.received;
    expect(first!.headers['webhook-id']).toBe(queued.event_id);
    expect(new Webhook(secret).verify(first!.body, first!.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: hook.id },
    });

    hooks.status = 200;
    expect(await redeliverWebhook(h.deps.db, queued.delivery_id, new Date())).toEqual({ id: queued.delivery_id, webhook_id: hook.id, status: 'pending' });
    await until(async () => ((await deliveryStatus(queued.delivery_id)).status === 'succeeded' ? true : undefined));
    // A fresh retry schedule: the redelivery's attempt is its first.
    expect(await deliveryStatus(queued.delivery_id)).toEqual({ status: 'succeeded', attempt_count: 1 });
    expect(hooks.received).toHaveLength(3);
    expect(hooks.received[2]!.headers['webhook-id']).toBe(queued.event_id);
    expect(hooks.received[2]!.body).toBe(first!.body);
  });

  it('refuses unknown ids and a disabled endpoint', async () => {
    const { endpoint: hook } = await endpoint();
    // Never sent: the endpoint is disabled before the sender gets to it.
    await updateWebhookEndpoint(h.deps.db, hook, { status: 'disabled' }, new Date());
    await expect(sendTestWebhook(h.deps.db, hook.id, new Date())).rejects.toMatchObject({ code: 'webhook_endpoint_disabled' });
    await expect(sendTestWebhook(h.deps.db, 'wh_unknown', new Date())).rejects.toMatchObject({ code: 'webhook_not_found' });
    await expect(redeliverWebhook(h.deps.db, 'whd_unknown', new Date())).rejects.toMatchObject({ code: 'webhook_delivery_not_found' });
  });
});

describe('redeliverWebhookDelivery', () => {
  it('sends a failed delivery again, with the same event id, to the receiver', async () => {
    const endpoint = await insertWebhookEndpoint(h.deps.db, {
      accountId: setup.accountId,
      url: hooks.url,
      events: ['email.accepted', 'email.failed', 'email.bounced', 'email.deferred'],
      description: null,
      secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, newWebhookSecret()),
      now: new Date(),
    });
    const earlier = hooks.received.length;
    hooks.status = 500;
    // A message to a domain with no MX fails at once: one email.failed event for the endpoint.
    const emailId = await h.queueEmail(setup, { to: ['ann@nowhere.invalid'] });
    await h.runJob(emailId);
    const [delivery] = await h.deps.db`select id from webhook_deliveries where endpoint_id = ${endpoint.id}`;
    const id = delivery!.id as string;
    await until(async () => ((await deliveryStatus(id)).status === 'failed' ? true : undefined));
    const firstRound = hooks.received.length;
    expect(firstRound - earlier).toBe(2);

    hooks.status = 200;
    const target = { accountId: setup.accountId, endpointId: endpoint.id, deliveryId: id };
    await redeliverWebhookDelivery(h.deps.db, target, new Date());
    await until(async () => ((await deliveryStatus(id)).status === 'succeeded' ? true : undefined));
    expect(await deliveryStatus(id)).toEqual({ status: 'succeeded', attempt_count: 1 });
    expect(hooks.received).toHaveLength(firstRound + 1);
    expect(hooks.received[firstRound]!.headers['webhook-id']).toBe(hooks.received[earlier]!.headers['webhook-id']);

    await expect(redeliverWebhookDelivery(h.deps.db, { ...target, accountId: 'acc_someoneelse' }, new Date())).rejects.toMatchObject({ code: 'webhook_not_found' });
    await expect(redeliverWebhookDelivery(h.deps.db, { ...target, deliveryId: 'whd_unknown' }, new Date())).rejects.toMatchObject({ code: 'webhook_not_found' });
    await updateWebhookEndpoint(h.deps.db, endpoint, { status: 'disabled' }, new Date());
    await expect(redeliverWebhookDelivery(h.deps.db, target, new Date())).rejects.toMatchObject({ code: 'webhook_endpoint_disabled' });
    expect(await deliveryStatus(id)).toEqual({ status: 'succeeded', attempt_count: 1 });
  });
});
