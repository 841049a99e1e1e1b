import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { pauseSending } from '@mailer/operations';
import { startSubmissionHarness, type SubmissionHarness } from '@mailer/submission/testing';
import { insertReadyDomain, insertSender, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';

/**
 * Test mode (docs/api-decisions.md, "Test mode") through the API, the submission listener and
 * the delivery daemon: simulated outcomes with their events and webhooks, nothing delivered to
 * the recipients' MX (a loopback peer), nothing counted, each key seeing its own mode only.
 */
let h: WorkerHarness;
let api: TestApi;
let submission: SubmissionHarness;
let peer: TestSmtpServer;
let accountId: string;
let live: string;
let test: string;
let management: string;

const send = (key: string, body: Record<string, unknown>, from = 'hello@shop.test') =>
  api.http
    .post('/v1/emails')
    .set('Authorization', `Bearer ${key}`)
    .set('Idempotency-Key', randomUUID())
    .send({ from, subject: 'Your receipt', content: { plain: 'Hello' }, ...body });
const detail = (key: string, id: string) => api.http.get(`/v1/emails/${id}`).set('Authorization', `Bearer ${key}`);

/**
 * The test message once its events satisfy `wanted`, read once more then: an answer's message
 * row, deliveries and events are read by separate statements, so only a later read is sure to
 * hold every write the events show.
 */
async function waitForEvents(id: string, wanted: (events: { type: string; recipient?: string }[]) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await detail(test, id);
    if (wanted(res.body.events ?? [])) return (await detail(test, id)).body as Record<string, any>;
    if (Date.now() > deadline) throw new Error(`events ${JSON.stringify(res.body.events)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const usage = async () => {
  const [row] = await api.deps.db`select recipients_total, active_deliveries as active from account_usage where account_id = ${accountId}`;
  const [counted] = await api.deps.db`select count(*)::int as n from recipient_usage where account_id = ${accountId}`;
  const [suppressed] = await api.deps.db`select count(*)::int as n from suppressions where account_id = ${accountId}`;
  const [reputation] = await api.deps.db`select count(*)::int as n from account_reputation_hours where account_id = ${accountId}`;
  const [senders] = await api.deps.db`
    select sum(accepted_count + bounced_count + failed_count + deferred_count)::int as n from senders where account_id = ${accountId}`;
  const account = await api.http.get('/v1/account').set('Authorization', management);
  expect(account.status).toBe(200);
  return {
    api: account.body.usage,
    total: Number(row!.recipients_total),
    active: row!.active,
    usageRows: counted!.n,
    suppressions: suppressed!.n,
    reputation: reputation!.n,
    senderCounts: senders!.n,
  };
};

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, WEBHOOK_ALLOW_PRIVATE: 'true' });
  submission = await startSubmissionHarness({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX! });
  const provisioned = await api.createAccount();
  accountId = provisioned.account.id;
  live = provisioned.sending_key;
  test = provisioned.test_sending_key;
  management = `Bearer ${provisioned.management_key}`;
  expect(test).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
  const ready = await insertReadyDomain(api.deps.db, api.config.encryptionKey, accountId, 'shop.test');
  await insertSender(api.deps.db, accountId, ready.id, 'hello@shop.test');
  const pending = await insertReadyDomain(api.deps.db, api.config.encryptionKey, accountId, 'new.test');
  await api.deps.db`update domains set dkim_status = 'pending', dmarc_status = 'pending' where id = ${pending.id}`;
  await insertSender(api.deps.db, accountId, pending.id, 'hello@new.test');
  // The recipients' MX is a loopback peer: a test message must never reach it.
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.43' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.43', port: h.smtpPort });
  h.startDaemon();
});
afterAll(async () => {
  await peer.close();
  await submission.close();
  await api.close();
  await h.close();
});

describe('test mode', () => {
  it('simulates every outcome by local part, with its events and a signed webhook saying test', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const hook = await api.http
        .post('/v1/webhooks')
        .set('Authorization', management)
        .send({ url: receiver.url, events: ['email.accepted', 'email.bounced', 'email.deferred', 'email.failed', 'email.complained'] });
      expect(hook.status).toBe(201);
      const before = await usage();
      const to = ['bounce@rcpt.test', 'defer-1@rcpt.test', 'complain@rcpt.test', 'suppress@rcpt.test', 'ann@rcpt.test'];
      const sent = await send(test, { to });
      expect(sent.status).toBe(202);
      const email = await waitForEvents(sent.body.id, (events) => events.filter((e) => ['accepted', 'bounced', 'failed'].includes(e.type)).length === 5);
      expect(email.test).toBe(true);
      const status = Object.fromEntries(email.deliveries.map((d: any) => [d.recipient, [d.status, d.cause?.code ?? null, d.attempt_count]]));
      expect(status).toEqual({
        'bounce@rcpt.test': ['bounced', 'recipient_unknown', 1],
        'defer-1@rcpt.test': ['accepted', null, 2],
        'complain@rcpt.test': ['accepted', null, 1],
        'suppress@rcpt.test': ['failed', 'recipient_suppressed', 1],
        'ann@rcpt.test': ['accepted', null, 1],
      });
      const eventsOf = (recipient: string) => email.events.filter((e: any) => e.recipient === recipient).map((e: any) => e.type);
      expect(eventsOf('defer-1@rcpt.test')).toEqual(['sending', 'deferred', 'sending', 'accepted']);
      expect(eventsOf('complain@rcpt.test')).toEqual(['sending', 'accepted', 'complained']);
      expect(eventsOf('bounce@rcpt.test')).toEqual(['sending', 'bounced']);
      expect(eventsOf('suppress@rcpt.test')).toEqual(['sending', 'failed']);
      // One simulated attempt per outcome, naming only the recipients it shows, then the deferred one's second attempt.
      const attempts = email.attempts.map((a: any) => [a.outcome, a.cause?.code ?? null, [...a.recipients].sort(), a.tls]);
      expect(attempts.sort()).toEqual(
        [
          ['accepted', null, ['ann@rcpt.test', 'complain@rcpt.test'], false],
          ['accepted', null, ['defer-1@rcpt.test'], false],
          ['bounced', 'recipient_unknown', ['bounce@rcpt.test'], false],
          ['deferred', 'greylisted', ['defer-1@rcpt.test'], false],
          ['failed', 'recipient_suppressed', ['suppress@rcpt.test'], false],
        ].sort(),
      );
      expect(email.attempts.map((a: any) => a.number)).toEqual([1, 2, 3, 4, 5]);

      const deadline = Date.now() + 15_000;
      while (receiver.received.length < 7 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const webhooks = receiver.received.map(({ headers, body }) => new Webhook(hook.body.secret).verify(body, headers as Record<string, string>) as any);
      expect(webhooks.map((w) => `${w.type} ${w.data.recipient}`).sort()).toEqual([
        'email.accepted ann@rcpt.test',
        'email.accepted complain@rcpt.test',
        'email.accepted defer-1@rcpt.test',
        'email.bounced bounce@rcpt.test',
        'email.complained complain@rcpt.test',
        'email.deferred defer-1@rcpt.test',
        'email.failed suppress@rcpt.test',
      ]);
      expect(webhooks.every((w) => w.data.test === true && w.data.email_id === sent.body.id)).toBe(true);

      // Nothing left the service and nothing was counted: usage, active deliveries, suppressions, reputation.
      expect(peer.dataReceived()).toBe(0);
      expect(await usage()).toEqual(before);
    } finally {
      await receiver.close();
    }
  });

  it('keeps live and test messages apart in lists and by id', async () => {
    const sentTest = await send(test, { to: ['ann@rcpt.test'] });
    const sentLive = await send(live, { to: ['ann@rcpt.test'], scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect([sentTest.status, sentLive.status]).toEqual([202, 202]);
    const list = async (key: string) => (await api.http.get('/v1/emails?limit=100').set('Authorization', `Bearer ${key}`)).body.data as any[];
    const [testList, liveList] = [await list(test), await list(live)];
    expect(testList.map((e) => e.id)).toContain(sentTest.body.id);
    expect(testList.map((e) => e.id)).not.toContain(sentLive.body.id);
    expect(testList.every((e) => e.test === true)).toBe(true);
    expect(liveList.map((e) => e.id)).toEqual([sentLive.body.id]);
    expect(liveList[0].test).toBe(false);
    expect((await detail(live, sentTest.body.id)).status).toBe(404);
    expect((await detail(test, sentLive.body.id)).status).toBe(404);
    expect((await api.http.post(`/v1/emails/${sentLive.body.id}/cancel`).set('Authorization', `Bearer ${test}`)).status).toBe(404);
    expect((await detail(live, sentLive.body.id)).body.test).toBe(false);
    // A test list's cursor is of the test list only.
    const page = await api.http.get('/v1/emails?limit=1').set('Authorization', `Bearer ${test}`);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const crossed = await api.http.get(`/v1/emails?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`).set('Authorization', `Bearer ${live}`);
    expect([crossed.status, crossed.body.error?.code]).toEqual([400, 'invalid_cursor']);
  });

  it('takes a sender whose domain is not ready with the test key only', async () => {
    const refused = await send(live, { to: ['ann@rcpt.test'] }, 'hello@new.test');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('sender_not_allowed');
    const sent = await send(test, { to: ['ann@rcpt.test'] }, 'hello@new.test');
    expect(sent.status).toBe(202);
    const email = await waitForEvents(sent.body.id, (events) => events.some((e) => e.type === 'accepted'));
    expect(email.status).toBe('accepted');
    expect(peer.dataReceived()).toBe(0);
  });

  it('takes test mail over SMTP submission, simulated the same way', async () => {
    const before = await usage();
    const to = ['bounce-smtp@rcpt.test', 'defer-smtp@rcpt.test', 'complain-smtp@rcpt.test', 'suppress-smtp@rcpt.test', 'bob@rcpt.test'];
    const submitted = await submission.submit(test, { from: 'hello@shop.test', to, subject: 'Over SMTP', text: 'Hello' });
    expect(submitted.accepted).toBe(true);
    const id = /queued as (em_\w+)/.exec(submitted.response)![1]!;
    const email = await waitForEvents(id, (events) => events.filter((e) => ['accepted', 'bounced', 'failed'].includes(e.type)).length === 5);
    expect(email.test).toBe(true);
    expect(Object.fromEntries(email.deliveries.map((d: any) => [d.recipient, [d.status, d.cause?.code ?? null]]))).toEqual({
      'bounce-smtp@rcpt.test': ['bounced', 'recipient_unknown'],
      'defer-smtp@rcpt.test': ['accepted', null],
      'complain-smtp@rcpt.test': ['accepted', null],
      'suppress-smtp@rcpt.test': ['failed', 'recipient_suppressed'],
      'bob@rcpt.test': ['accepted', null],
    });
    const eventsOf = (recipient: string) => email.events.filter((e: any) => e.recipient === recipient).map((e: any) => e.type);
    expect(eventsOf('defer-smtp@rcpt.test')).toEqual(['sending', 'deferred', 'sending', 'accepted']);
    expect(eventsOf('complain-smtp@rcpt.test')).toEqual(['sending', 'accepted', 'complained']);
    expect((await detail(live, id)).status).toBe(404);
    expect(peer.dataReceived()).toBe(0);
    expect(await usage()).toEqual(before);
  });

  it('takes over SMTP a message whose recipients are all BCC (To: undisclosed-recipients:;), shown with an empty to', async () => {
    const submitted = await submission.submit(test, {
      from: 'hello@shop.test',
      envelope: { from: 'app@shop.test', to: ['hidden-1@rcpt.test', 'hidden-2@rcpt.test'] },
      headers: { To: 'undisclosed-recipients:;' },
      subject: 'All BCC',
      text: 'Hello',
    });
    expect([submitted.accepted, submitted.response]).toEqual([true, expect.stringMatching(/^250 2\.0\.0 queued as em_/)]);
    const id = /queued as (em_\w+)/.exec(submitted.response)![1]!;
    const email = await waitForEvents(id, (events) => events.filter((e) => e.type === 'accepted').length === 2);
    expect(email).toMatchObject({ to: [], cc: [], bcc_count: 2, deliveries: [], status: 'accepted' });
    expect(email.bcc_deliveries.accepted).toBe(2);
    expect(email.events.every((e: { recipient?: string }) => e.recipient === undefined)).toBe(true);
    const listed = await api.http.get('/v1/emails?limit=5').set('Authorization', `Bearer ${test}`);
    expect(listed.body.data.find((e: { id: string }) => e.id === id)).toMatchObject({ to: [], bcc_count: 2 });
  });

  it('keeps separate idempotency spaces for the test and the live key, over HTTP and SMTP', async () => {
    const key = randomUUID();
    const body = { from: 'hello@shop.test', to: ['ann@rcpt.test'], subject: 'Once', content: { plain: 'Hello' }, scheduled_at: new Date(Date.now() + 3_600_000).toISOString() };
    const post = (sendingKey: string) => api.http.post('/v1/emails').set('Authorization', `Bearer ${sendingKey}`).set('Idempotency-Key', key).send(body);
    const firstTest = await post(test);
    expect(firstTest.status).toBe(202);
    const firstLive = await post(live);
    expect([firstLive.status, firstLive.headers['idempotent-replayed']]).toEqual([202, undefined]);
    expect(firstLive.body.id).not.toBe(firstTest.body.id);
    const againTest = await post(test);
    expect([againTest.status, againTest.headers['idempotent-replayed'], againTest.body.id]).toEqual([202, 'true', firstTest.body.id]);
    const againLive = await post(live);
    expect([againLive.status, againLive.headers['idempotent-replayed'], againLive.body.id]).toEqual([202, 'true', firstLive.body.id]);
    expect((await detail(live, firstLive.body.id)).body.test).toBe(false);

    // Over SMTP the Message-ID is the key: a test message's never makes a live one a replay.
    const messageId = `<${randomUUID()}@shop.test>`;
    const message = { from: 'hello@shop.test', to: 'ann@nowhere.test', subject: 'Once', text: 'Hello', messageId };
    const idOf = (response: string) => /queued as (em_\w+)/.exec(response)![1]!;
    const testSmtp = await submission.submit(test, message);
    const liveSmtp = await submission.submit(live, message);
    expect([testSmtp.accepted, liveSmtp.accepted]).toEqual([true, true]);
    expect(idOf(liveSmtp.response)).not.toBe(idOf(testSmtp.response));
    expect((await detail(live, idOf(liveSmtp.response))).body.test).toBe(false);
    expect(idOf((await submission.submit(live, message)).response)).toBe(idOf(liveSmtp.response));
  });

  it('bounds test mail to 100 recipients a minute, over HTTP (429) and SMTP (452 4.5.3)', async () => {
    const bound = await api.createAccount();
    const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, bound.account.id, 'bound.test');
    await insertSender(api.deps.db, bound.account.id, domain.id, 'hello@bound.test');
    const recipients = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `r${from + i}@rcpt.test`);
    const first = await send(bound.test_sending_key, { to: recipients(50) }, 'hello@bound.test');
    expect(first.status).toBe(202);
    expect(first.headers['ratelimit-remaining']).toBe('50');
    const second = await send(bound.test_sending_key, { to: recipients(50, 50) }, 'hello@bound.test');
    expect(second.status).toBe(202);
    const over = await send(bound.test_sending_key, { to: ['one-more@rcpt.test'] }, 'hello@bound.test');
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    const overSmtp = await submission.submit(bound.test_sending_key, { from: 'hello@bound.test', to: 'one-more@rcpt.test', subject: 'x', text: 'x' });
    expect(overSmtp.accepted).toBe(false);
    expect(overSmtp.response).toMatch(/^452 4\.5\.3/);
    // The live key of the same account is not bound by it, and the free plan saw no usage.
    const liveSent = await send(bound.sending_key, { to: ['ann@rcpt.test'], scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }, 'hello@bound.test');
    expect(liveSent.status).toBe(202);
    const [row] = await api.deps.db`select recipients_total from account_usage where account_id = ${bound.account.id}`;
    expect(Number(row!.recipients_total)).toBe(1);
  });

  it("takes and simulates test mail while the account's live sending is paused", async () => {
    const paused = await api.createAccount();
    const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, paused.account.id, 'paused.test');
    await insertSender(api.deps.db, paused.account.id, domain.id, 'hello@paused.test');
    expect(await pauseSending(api.deps.db, paused.account.id, 'abuse desk report', new Date())).toMatchObject({ changed: true });
    const refused = await send(paused.sending_key, { to: ['ann@rcpt.test'] }, 'hello@paused.test');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'sending_paused']);
    const sent = await send(paused.test_sending_key, { to: ['ann@rcpt.test'] }, 'hello@paused.test');
    expect(sent.status).toBe(202);
    const deadline = Date.now() + 15_000;
    let status = '';
    while (status !== 'accepted' && Date.now() < deadline) {
      status = (await detail(paused.test_sending_key, sent.body.id)).body.status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('accepted');
  });
});
