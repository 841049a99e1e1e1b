import { Webhook } from 'standardwebhooks';
import { findSendingStates, setAccountPlan } from '@mailer/db';
import type { EmailType, SendingStatus } from '@mailer/domain';
import { reportFixture, startInboundHarness, type InboundHarness } from '@mailer/inbound/testing';
import { accountSendingState, resumeSending } from '@mailer/operations';
import { startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/**
 * Reputation protection end to end (docs/api-decisions.md, "Reputation"): the running daemon
 * delivers to a real SMTP peer that refuses some recipients with 550 5.1.1, the inbound
 * listener takes a feedback loop's complaint, and the daemon's periodic evaluation pauses the
 * account whose rates pass its plan's thresholds (with an `account.sending_status_changed`
 * webhook), while another account's mail keeps going out. A paused account's owed mail waits
 * unattempted until it is resumed (or expires).
 */
let h: WorkerHarness;
let inbound: InboundHarness;
let peer: TestSmtpServer;
let receiver: WebhookReceiver;
/** Each watched account's endpoint secret. */
const secrets = new Map<string, string>();

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', REPUTATION_CHECK_INTERVAL: '200ms' });
  inbound = await startInboundHarness({ DATABASE_URL: h.env.DATABASE_URL! });
  h.dns.set('recipient.test', [{ type: 'MX', exchange: 'mx.recipient.test', priority: 10 }]);
  h.dns.set('mx.recipient.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort, rcpt: (address) => (address.startsWith('gone') ? '550 5.1.1 User unknown' : undefined) });
  receiver = await startWebhookReceiver();
  h.startDaemon();
});
afterAll(async () => {
  await receiver.close();
  await peer.close();
  await inbound.close();
  await h.close();
});

/** An account judged from 20 deliveries a day, with a webhook endpoint for its status changes. */
async function watchedAccount(domain: string): Promise<SendingSetup> {
  const setup = await h.createSendingSetup({ domain });
  await setAccountPlan(h.deps.db, setup.accountId, { minVolume: 20 });
  const { secret } = await h.subscribeWebhooks(setup.accountId, receiver.url, ['account.sending_status_changed']);
  secrets.set(setup.accountId, secret);
  return setup;
}

/** Queues a message as intake leaves it and gives it its job, as intake does. */
async function send(setup: SendingSetup, to: string[], createdAt?: Date, type: EmailType = 'transactional'): Promise<string> {
  const emailId = await h.queueEmail(setup, { to, createdAt, type });
  await h.deps.deliveryQueue.enqueue({ emailId, dueAt: createdAt ?? new Date(), accountId: setup.accountId });
  return emailId;
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A stream's sending state now (the transactional stream's unless told). */
const findSendingState = async (accountId: string, stream: EmailType = 'transactional') =>
  (await findSendingStates(h.deps.db, accountId, new Date())).find((s) => s.stream === stream);

const statusOf = async (setup: SendingSetup, status: SendingStatus, stream: EmailType = 'transactional') => {
  const state = await findSendingState(setup.accountId, stream);
  return state?.status === status ? state : undefined;
};

/** The verified `account.sending_status_changed` events the endpoint received for the account, in order. */
const statusEvents = (setup: SendingSetup) =>
  receiver.received
    .filter((r) => JSON.parse(r.body).data.account_id === setup.accountId)
    .map((r) => new Webhook(secrets.get(setup.accountId)!).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type === 'account.sending_status_changed')
    .map((e) => e.data);

const recipients = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}@recipient.test`);

describe('reputation protection', () => {
  it('pauses an account whose mail hard-bounces past its plan threshold, holds its owed mail, and keeps delivering another account', async () => {
    const bouncing = await watchedAccount('stale-list.test');
    const steady = await h.createSendingSetup({ domain: 'steady.test' });

    // 3 of 20 recipients unknown: 15 %, past the 10 % pause threshold.
    const first = await send(bouncing, [...recipients('ok', 17), ...recipients('gone', 3)]);
    await h.waitForStatus(first, ['accepted', 'bounced']);
    const paused = await waitFor('the pause', () => statusOf(bouncing, 'paused'));
    expect(paused.reason).toBe('hard-bounce rate 15 % of the last 24 hours reached 10 % (20 deliveries)');
    expect((await accountSendingState(h.deps.db, bouncing.accountId, new Date()))?.transactional).toMatchObject({ status: 'paused', bounce_rate: 0.15, complaint_rate: 0 });
    expect(await waitFor('the webhook', async () => statusEvents(bouncing)[0])).toMatchObject({
      account_id: bouncing.accountId,
      stream: 'transactional',
      previous_status: 'enabled',
      status: 'paused',
      bounce_rate: 0.15,
      complaint_rate: 0,
    });

    // A message accepted before the pause waits unattempted, due again at its expiry; another account's goes out.
    const held = await send(bouncing, ['later@recipient.test']);
    const other = await send(steady, ['customer@recipient.test']);
    await h.waitForStatus(other, ['accepted']);
    const waiting = await waitFor('the held delivery', async () => {
      const stored = await h.readEmail(held);
      const [delivery] = stored.deliveries;
      return delivery!.status === 'queued' && delivery!.nextAttemptAt.getTime() > Date.now() + 3_600_000 ? stored : undefined;
    });
    expect(waiting.deliveries[0]!.nextAttemptAt).toEqual(new Date(waiting.email.createdAt.getTime() + h.config.worker.maxDeliveryAgeMs));
    expect(waiting.attempts).toEqual([]);
    expect(peer.messages.some((m) => m.to.includes('later@recipient.test'))).toBe(false);

    // One past its maximum age expires unattempted.
    const expired = await send(bouncing, ['old@recipient.test'], new Date(Date.now() - h.config.worker.maxDeliveryAgeMs - 60_000));
    const ended = await h.waitForStatus(expired, ['failed']);
    expect(ended.deliveries[0]).toMatchObject({ status: 'failed', cause: { code: 'retries_exhausted' }, attemptCount: 1 });
    expect(ended.attempts.map((a) => a.mxHost)).toEqual([null]);

    // Resumed: the window starts afresh, and the held message goes out at once.
    const resumed = await resumeSending(h.deps.db, h.deps.deliveryQueue, bouncing.accountId, 'list cleaned', new Date());
    expect(resumed).toMatchObject({ changed: true, sending: { status: 'enabled', reason: 'list cleaned', bounce_rate: 0, complaint_rate: 0 } });
    await h.waitForStatus(held, ['accepted']);
    expect(await waitFor('the second webhook', async () => statusEvents(bouncing)[1])).toMatchObject({ previous_status: 'paused', status: 'enabled', reason: 'list cleaned' });
    expect(await findSendingState(bouncing.accountId)).toMatchObject({
      status: 'enabled',
      window: { terminal: 1, accepted: 1, hardBounces: 0, complaints: 0 },
    });
  });

  it('pauses an account past its complaint threshold once a feedback loop reports a complaint', async () => {
    const complained = await watchedAccount('newsletter.test');
    const emailId = await send(complained, recipients('reader', 20));
    await h.waitForStatus(emailId, ['accepted']);
    await waitFor('the counts', async () => {
      const state = await findSendingState(complained.accountId);
      return state?.window.accepted === 20 ? state : undefined;
    });
    expect(await statusOf(complained, 'enabled')).toBeDefined();

    const [delivery] = await h.deps.db`select id from deliveries where email_id = ${emailId} and recipient = 'reader7@recipient.test'`;
    const returnPath = inbound.returnPathOf(delivery!.id as string, 'newsletter.test');
    const report = reportFixture('yahoo-arf-complaint.eml', returnPath).replaceAll('heidi@yahoo.com', 'reader7@recipient.test');
    expect(await inbound.send([returnPath], report)).toEqual({ accepted: true, responseCode: 250 });

    // 1 complaint over 20 accepted deliveries: 5 %, past the 0.5 % pause threshold.
    const paused = await waitFor('the pause', () => statusOf(complained, 'paused'));
    expect(paused.reason).toBe('complaint rate 5 % of the last 24 hours reached 0.5 % (20 deliveries)');
    expect(await waitFor('the webhook', async () => statusEvents(complained)[0])).toMatchObject({ status: 'paused', complaint_rate: 0.05, bounce_rate: 0 });
  });

  it('pauses the broadcast stream after a complaint spike on broadcast mail, while transactional mail keeps flowing', async () => {
    const mixed = await watchedAccount('digest.test');
    const digest = await send(mixed, recipients('subscriber', 20), undefined, 'broadcast');
    await h.waitForStatus(digest, ['accepted']);
    await waitFor('the broadcast counts', async () => {
      const state = await findSendingState(mixed.accountId, 'broadcast');
      return state?.window.accepted === 20 ? state : undefined;
    });
    const [delivery] = await h.deps.db`select id from deliveries where email_id = ${digest} and recipient = 'subscriber3@recipient.test'`;
    const returnPath = inbound.returnPathOf(delivery!.id as string, 'digest.test');
    const report = reportFixture('yahoo-arf-complaint.eml', returnPath).replaceAll('heidi@yahoo.com', 'subscriber3@recipient.test');
    expect(await inbound.send([returnPath], report)).toEqual({ accepted: true, responseCode: 250 });

    const paused = await waitFor('the broadcast pause', () => statusOf(mixed, 'paused', 'broadcast'));
    expect(paused.reason).toBe('complaint rate 5 % of the last 24 hours reached 0.5 % (20 deliveries)');
    expect(await waitFor('the webhook', async () => statusEvents(mixed)[0])).toMatchObject({ stream: 'broadcast', status: 'paused', complaint_rate: 0.05 });
    // The complainer is suppressed for broadcast mail only.
    expect(await h.deps.db`select stream, reason from suppressions where account_id = ${mixed.accountId}`).toEqual([{ stream: 'broadcast', reason: 'complaint' }]);

    // Transactional mail goes out, to the complainer too; broadcast mail waits unattempted.
    const receipt = await send(mixed, ['subscriber3@recipient.test', 'buyer@recipient.test']);
    const nextDigest = await send(mixed, ['subscriber9@recipient.test'], undefined, 'broadcast');
    await h.waitForStatus(receipt, ['accepted']);
    const waiting = await waitFor('the held broadcast', async () => {
      const stored = await h.readEmail(nextDigest);
      return stored.deliveries[0]!.status === 'queued' && stored.deliveries[0]!.nextAttemptAt.getTime() > Date.now() + 3_600_000 ? stored : undefined;
    });
    expect(waiting.attempts).toEqual([]);
    expect(await statusOf(mixed, 'enabled', 'transactional')).toBeDefined();
    expect(statusEvents(mixed)).toHaveLength(1);

    // Resuming the broadcast stream sends the held digest.
    expect(await resumeSending(h.deps.db, h.deps.deliveryQueue, mixed.accountId, 'complainer removed', new Date(), ['broadcast'])).toMatchObject({ changed: true });
    await h.waitForStatus(nextDigest, ['accepted']);
  });
});
