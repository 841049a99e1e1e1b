import { updateWebhookEndpoint } from '@mailer/db';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { redeliverWebhookDelivery } from '@mailer/operations';
import { insertWebhookEndpoint, startWebhookReceiver, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { startWebhookSender, type WebhookSender } from './webhook-sender';

let h: WorkerHarness;
let sender: WebhookSender;
let setup: SendingSetup;
let hooks: WebhookReceiver;

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms' });
  sender = startWebhookSender(h.deps);
  setup = await h.createSendingSetup({ domain: 'redeliver.test' });
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await sender.stop();
  await hooks.close();
  await h.close();
});

/** Polls a database read until it holds; the bound only stops a hang. */
async function until(check: () => Promise<boolean>) {
  for (let waited = 0; !(await check()); waited++) {
    if (waited > 2_000) throw new Error('the state was not reached');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliveryOf = async (id: string) =>
  (await h.deps.db`select status, attempt_count from webhook_deliveries where id = ${id}`)[0] as { status: string; attempt_count: number };

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
    hooks.status = 500;
    // A message to a domain with no MX fails at once: one email.failed event for the endpoint.
    const emailId = await h.queueEmail(setup, { to: ['ann@nowhere.invalid'] });
    await h.runJob(emailId);
    const [delivery] = await h.deps.db`select id from webhook_deliveries where endpoint_id = ${endpoint.id}`;
    const id = delivery!.id as string;
    await until(async () => (await deliveryOf(id)).status === 'failed');
    const firstRound = hooks.received.length;
    expect(firstRound).toBe(2);

    hooks.status = 200;
    const target = { accountId: setup.accountId, endpointId: endpoint.id, deliveryId: id };
    await redeliverWebhookDelivery(h.deps.db, target, new Date());
    await until(async () => (await deliveryOf(id)).status === 'succeeded');
    expect(await deliveryOf(id)).toEqual({ status: 'succeeded', attempt_count: 1 });
    expect(hooks.received).toHaveLength(firstRound + 1);
    expect(hooks.received[firstRound]!.headers['webhook-id']).toBe(hooks.received[0]!.headers['webhook-id']);

    await expect(redeliverWebhookDelivery(h.deps.db, { ...target, accountId: 'acc_someoneelse' }, new Date())).rejects.toMatchObject({ code: 'webhook_not_found' });
    await expect(redeliverWebhookDelivery(h.deps.db, { ...target, deliveryId: 'whd_unknown' }, new Date())).rejects.toMatchObject({ code: 'webhook_not_found' });
    await updateWebhookEndpoint(h.deps.db, endpoint, { status: 'disabled' }, new Date());
    await expect(redeliverWebhookDelivery(h.deps.db, target, new Date())).rejects.toMatchObject({ code: 'webhook_endpoint_disabled' });
    expect(await deliveryOf(id)).toEqual({ status: 'succeeded', attempt_count: 1 });
  });
});
