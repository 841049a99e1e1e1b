import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { deleteWebhookEndpoint, rotateWebhookSecret, updateWebhookEndpoint, type WebhookEndpoint } from '@mailer/db';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE, type WebhookEventType } from '@mailer/domain';
import { startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { startWebhookSender, type WebhookSender } from './webhook-sender';

let h: WorkerHarness;
let sender: WebhookSender;
let setup: SendingSetup;
const peers: TestSmtpServer[] = [];
const receivers: WebhookReceiver[] = [];

async function mx(domain: string, address: string, options: Omit<Parameters<typeof startTestSmtpServer>[0], 'host' | 'port'> = {}) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
  h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  peers.push(await startTestSmtpServer({ host: address, port: h.smtpPort, ...options }));
}

function endpoint(accountId: string, target: { url: string }, events?: WebhookEventType[]): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return h.subscribeWebhooks(accountId, target.url, events ?? ['email.accepted', 'email.deferred', 'email.bounced', 'email.failed']);
}

const receiver = async () => {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
};

async function until<T>(read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      // What the sender logged and where the outbox and the database's sessions stand say why: a failed claim or
      // record, an attempt that failed before the receiver saw it, a delivery still leased, or a statement waiting.
      const logged = h.logLines().filter((line) => line.level === 'warn' || line.level === 'error' || line.message === 'webhook attempt failed');
      const outbox = await h.deps.db`select id, status, attempt_count, next_attempt_at, lease_expires_at, now() as now from webhook_deliveries order by created_at desc limit 5`;
      const sessions = await h.deps.db`
        select state, wait_event_type, wait_event, now() - xact_start as in_transaction, left(query, 120) as query
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`;
      throw new Error(`timed out; the sender logged: ${JSON.stringify(logged)}; the outbox: ${JSON.stringify(outbox)}; busy sessions: ${JSON.stringify(sessions)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' });
  sender = startWebhookSender(h.deps);
  setup = await h.createSendingSetup({ domain: 'hooks.test' });
  await mx('one.test', '127.0.0.2', { rcpt: (a) => (a.startsWith('gone') ? '550 5.1.1 User unknown' : undefined) });
});
afterAll(async () => {
  await sender.stop();
  await Promise.all([...peers.map((p) => p.close()), ...receivers.map((r) => r.close())]);
  await h.close();
});

describe('webhooks from a delivery', () => {
  it('sends one signed event per recipient transition, verified by the standardwebhooks package, with nothing of a BCC address', async () => {
    const hooks = await receiver();
    const { secret } = await endpoint(setup.accountId, hooks);
    const emailId = await h.queueEmail(setup, { to: ['ann@one.test', 'gone@one.test'], bcc: ['hidden@one.test'], subject: 'Your receipt' });
    await h.runJob(emailId);
    const received = await until(() => (hooks.received.length >= 3 ? hooks.received : undefined));
    const bodies = received.map(({ headers, body }) => {
      // Throws unless the signature, id and timestamp hold.
      new Webhook(secret).verify(body, headers as Record<string, string>);
      expect(headers['webhook-id']).toMatch(/^evt_[0-9A-Za-z]{22}$/);
      return JSON.parse(body);
    });
    const byRecipient = new Map(bodies.map((b) => [b.data.recipient, b]));
    expect(byRecipient.get('ann@one.test')).toEqual({
      type: 'email.accepted',
      timestamp: expect.any(String),
      data: {
        email_id: emailId,
        recipient: 'ann@one.test',
        recipient_kind: 'to',
        status: 'accepted',
        cause: null,
        attempt_count: 1,
        from: setup.sender.email,
        subject: 'Your receipt',
        tags: {},
        test: false,
      },
    });
    expect(byRecipient.get('gone@one.test')).toMatchObject({ type: 'email.bounced', data: { cause: { code: 'recipient_unknown' } } });
    expect(byRecipient.get(null)).toMatchObject({ type: 'email.accepted', data: { recipient_kind: 'bcc', recipient: null } });
    expect(received.map((r) => r.body).join('\n')).not.toContain('hidden');
  });

  it('retries a failing endpoint on the schedule with the same webhook-id, records each attempt, then succeeds', async () => {
    const hooks = await receiver();
    hooks.status = 500;
    const fresh = await h.createSendingSetup({ domain: 'retry-hooks.test' });
    const { endpoint: registered } = await endpoint(fresh.accountId, hooks, ['email.accepted']);
    await h.runJob(await h.queueEmail(fresh, { to: ['ann@one.test'] }));
    await until(() => (hooks.received.length >= 2 ? true : undefined));
    hooks.status = 204;
    await until(() => (hooks.received.length >= 3 ? true : undefined));
    const ids = new Set(hooks.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(hooks.received[1]!.at - hooks.received[0]!.at).toBeGreaterThanOrEqual(250);
    const stored = await waitForDelivery(registered.id, 'succeeded');
    expect(stored).toMatchObject({ status: 'succeeded', attempt_count: 3, last_response_status: 204 });
  });

  it('gives up after the schedule and signs with both secrets for a day after a rotation', async () => {
    const hooks = await receiver();
    hooks.status = 410;
    const fresh = await h.createSendingSetup({ domain: 'rotate-hooks.test' });
    const { endpoint: registered, secret: old } = await endpoint(fresh.accountId, hooks, ['email.accepted']);
    const secret = newWebhookSecret();
    await rotateWebhookSecret(h.deps.db, registered, seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret), new Date(Date.now() + 86_400_000), new Date());
    await h.runJob(await h.queueEmail(fresh, { to: ['ann@one.test'] }));
    const failed = await waitForDelivery(registered.id, 'failed');
    expect(failed).toMatchObject({ attempt_count: 3, last_response_status: 410 });
    const { headers, body } = hooks.received[0]!;
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [secret, old]) new Webhook(key).verify(body, headers as Record<string, string>);
  });

  it('disables an endpoint whose deliveries have all failed for WEBHOOK_DISABLE_AFTER', async () => {
    const hooks = await receiver();
    hooks.status = 503;
    const fresh = await h.createSendingSetup({ domain: 'dead-hooks.test' });
    const { endpoint: registered } = await endpoint(fresh.accountId, hooks, ['email.accepted']);
    await h.deps.db`update webhook_endpoints set failing_since = ${new Date(Date.now() - h.config.webhooks.disableAfterMs)} where id = ${registered.id}`;
    await h.runJob(await h.queueEmail(fresh, { to: ['ann@one.test'] }));
    await until(() => (hooks.received.length >= 1 ? true : undefined));
    const deadline = Date.now() + 20_000;
    let status: string | undefined;
    while (status !== 'disabled' && Date.now() < deadline) {
      [{ status } = { status: undefined }] = (await h.deps.db`select status from webhook_endpoints where id = ${registered.id}`) as unknown as { status: string }[];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('disabled');
    await h.runJob(await h.queueEmail(fresh, { to: ['bob@one.test'] }));
    // The outbox writes nothing for a disabled endpoint: there is nothing to send it.
    const [pending] = await h.deps.db`select count(*)::int as n from webhook_deliveries where endpoint_id = ${registered.id}`;
    expect(pending!.n).toBe(1);
    expect(hooks.received).toHaveLength(1);
  });

  it('ends the pending deliveries of an endpoint deleted or disabled, unsent, even one whose attempt was in flight', async () => {
    const hooks = await receiver();
    hooks.status = 500;
    const fresh = await h.createSendingSetup({ domain: 'ended-hooks.test' });
    const { endpoint: deleted } = await endpoint(fresh.accountId, hooks, ['email.accepted']);
    const { endpoint: disabled } = await endpoint(fresh.accountId, hooks, ['email.accepted']);
    await h.runJob(await h.queueEmail(fresh, { to: ['ann@one.test'] }));
    // The first attempt of each has reached the receiver; its record may not be written yet.
    await until(() => (hooks.received.length >= 2 ? true : undefined));
    expect(await deleteWebhookEndpoint(h.deps.db, fresh.accountId, deleted.id, new Date())).toBe(true);
    expect(await updateWebhookEndpoint(h.deps.db, disabled, { status: 'disabled' }, new Date())).toMatchObject({ status: 'disabled' });
    await waitForDelivery(deleted.id, 'failed');
    await waitForDelivery(disabled.id, 'failed');
    // Their retries were due 300 ms after the first attempts.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(hooks.received).toHaveLength(2);
    const rows = await h.deps.db`select status from webhook_deliveries where endpoint_id = any(${[deleted.id, disabled.id]}::text[])`;
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed']);
  });

  it('writes no outbox rows for an account without an enabled endpoint', async () => {
    const quiet = await h.createSendingSetup({ domain: 'quiet-hooks.test' });
    const emailId = await h.queueEmail(quiet, { to: ['ann@one.test', 'gone@one.test'] });
    await h.runJob(emailId);
    const [events] = await h.deps.db`select count(*)::int as count from webhook_events where email_id = ${emailId}`;
    expect(events!.count).toBe(0);
    const [email] = await h.deps.db`select status from emails where id = ${emailId}`;
    expect(email!.status).toBe('bounced');
  });

  it("keeps one account's slow endpoint from delaying another account's webhooks", async () => {
    const slow = await receiver();
    slow.delayMs = 6_000;
    const fast = await receiver();
    const slowAccount = await h.createSendingSetup({ domain: 'slow-hooks.test' });
    const fastAccount = await h.createSendingSetup({ domain: 'fast-hooks.test' });
    await endpoint(slowAccount.accountId, slow, ['email.accepted']);
    await endpoint(fastAccount.accountId, fast, ['email.accepted']);
    for (let i = 0; i < 8; i++) await h.runJob(await h.queueEmail(slowAccount, { to: [`s${i}@one.test`] }));
    await h.runJob(await h.queueEmail(fastAccount, { to: ['f@one.test'] }));
    await until(() => (fast.received.length >= 1 ? true : undefined));
    // Sent before the slow endpoint answered anything: it waited behind none of its requests.
    const firstSlowAnswer = slow.received.length > 0 ? Math.min(...slow.received.map((r) => r.at)) + slow.delayMs : Infinity;
    expect(fast.received[0]!.at).toBeLessThan(firstSlowAnswer);
  });

  it("keeps one account's silent endpoints to its share of the sender's slots: another account's event goes out while they all hang", async () => {
    const silent = await silentEndpoint();
    const fast = await receiver();
    const silentAccount = await h.createSendingSetup({ domain: 'silent-hooks.test' });
    const fastAccount = await h.createSendingSetup({ domain: 'served-hooks.test' });
    // Four endpoints of 8 places each: 32 requests could hang, more than the sender's 20 slots.
    const hanging = [];
    for (let i = 0; i < 4; i++) hanging.push((await endpoint(silentAccount.accountId, { url: `${silent.url}/${i}` }, ['email.accepted'])).endpoint);
    await endpoint(fastAccount.accountId, fast, ['email.accepted']);
    const concurrency = h.config.webhooks.concurrency;
    try {
      await h.runJob(await h.queueEmail(silentAccount, { to: Array.from({ length: 8 }, (_, i) => `s${i}@one.test`) }));
      await until(() => (silent.open >= concurrency - 1 ? true : undefined));
      await h.runJob(await h.queueEmail(fastAccount, { to: ['f@one.test'] }));
      await until(() => (fast.received.length >= 1 ? true : undefined));
      // No silent request has ended (each would at its 15 s timeout): the event did not wait for a slot they held.
      expect(silent.ended).toBe(0);
      expect(silent.mostOpen).toBeLessThan(concurrency);
    } finally {
      for (const registered of hanging) await deleteWebhookEndpoint(h.deps.db, silentAccount.accountId, registered.id, new Date());
      await silent.close();
    }
  });
});

/** A real HTTP endpoint that takes every request and never answers; it counts the requests still open. */
async function silentEndpoint() {
  const state = { url: '', open: 0, mostOpen: 0, ended: 0, close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    state.open++;
    state.mostOpen = Math.max(state.mostOpen, state.open);
    req.resume();
    // The connection closed: the sender gave up on the request.
    res.once('close', () => {
      state.open--;
      state.ended++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  state.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return state;
}

async function waitForDelivery(endpointId: string, status: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await h.deps.db`select status, attempt_count, last_response_status from webhook_deliveries where endpoint_id = ${endpointId}`;
    if (row?.status === status) return { ...row };
    if (Date.now() > deadline) throw new Error(`webhook delivery still ${row?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
