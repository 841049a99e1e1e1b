import { randomUUID } from 'node:crypto';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { insertReadyDomain, insertSender, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer } from '@mailer/testing';
import { Webhook } from 'standardwebhooks';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';

/** The send API additions end to end: API intake, the daemon, a recipient MX (docs/api-decisions.md, "Send API additions"). */
let h: WorkerHarness;
let api: TestApi;
let auth: string;
let management: string;
const peers: TestSmtpServer[] = [];

async function mx(domain: string, address: string) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx-host.${domain}`, priority: 10 }]);
  h.dns.set(`mx-host.${domain}`, [{ type: 'A', address }]);
  const peer = await startTestSmtpServer({ host: address, port: h.smtpPort });
  peers.push(peer);
  return peer;
}

const send = (body: Record<string, unknown>) =>
  api.http
    .post('/v1/emails')
    .set('Authorization', auth)
    .set('Idempotency-Key', randomUUID())
    .send({ from: 'hello@shop.test', subject: 'Your receipt', content: { plain: 'Thanks!' }, ...body });
const detail = async (id: string) => (await api.http.get(`/v1/emails/${id}`).set('Authorization', auth)).body as Record<string, any>;
const cancel = (id: string) => api.http.post(`/v1/emails/${id}/cancel`).set('Authorization', auth);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForStatus(id: string, statuses: string[]) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const body = await detail(id);
    if (statuses.includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`status ${body.status}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  h = await startWorkerHarness({ RETRY_SCHEDULE: '1s', WEBHOOK_ALLOW_PRIVATE: 'true' });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const provisioned = await api.createAccount();
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, provisioned.account.id, 'shop.test');
  h.dns.set(`${domain.dkim.selector}._domainkey.shop.test`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
  await insertSender(api.deps.db, provisioned.account.id, domain.id, 'hello@shop.test', { displayName: 'Shop' });
  auth = `Bearer ${provisioned.sending_key}`;
  management = `Bearer ${provisioned.management_key}`;
  h.startDaemon();
});
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await api.close();
  await h.close();
});

describe('reply_to, headers and tags', () => {
  it('go out as Reply-To and header fields covered by the DKIM signature, and tags reach the webhook body', async () => {
    const peer = await mx('one.test', '127.0.0.2');
    const receiver = await startWebhookReceiver();
    try {
      const hook = await api.http.post('/v1/webhooks').set('Authorization', management).send({ url: receiver.url, events: ['email.accepted'] });
      const unsubscribe = '<https://shop.test/unsubscribe/abc>, <mailto:unsubscribe@shop.test?subject=abc>';
      const accepted = await send({
        to: 'ann@one.test',
        reply_to: 'Support@Shop.test',
        headers: { 'List-Unsubscribe': unsubscribe, 'list-unsubscribe-post': 'List-Unsubscribe=One-Click', 'X-Campaign': 'spring' },
        tags: { campaign: 'spring', kind: 'receipt' },
      });
      expect(accepted.status).toBe(202);
      const body = await waitForStatus(accepted.body.id, ['accepted']);
      expect(body).toMatchObject({ tags: { campaign: 'spring', kind: 'receipt' }, reply_to: ['Support@shop.test'], scheduled_at: null });

      const raw = peer.messages[0]!.raw;
      const text = raw.toString();
      expect(text).toMatch(/^Reply-To: Support@shop\.test\r$/m);
      expect(text.replace(/\r\n[ \t]+/g, ' ')).toContain(`List-Unsubscribe: ${unsubscribe}`);
      expect(text).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
      expect(text).toMatch(/^X-Campaign: spring\r$/m);
      const [signature] = await verifyDkim(raw, h.dns.address);
      expect(signature).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
      // Gmail's one-click unsubscription needs both fields signed (RFC 8058 section 4).
      const signed = /^DKIM-Signature:[^]*?\bh=([^;]+);/im.exec(text)![1]!.replace(/\s/g, '').toLowerCase().split(':');
      expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'reply-to']));

      const deadline = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await sleep(25);
      const { headers, body: webhookBody } = receiver.received[0]!;
      expect(new Webhook(hook.body.secret).verify(webhookBody, headers as Record<string, string>)).toMatchObject({
        type: 'email.accepted',
        data: { email_id: accepted.body.id, tags: { campaign: 'spring', kind: 'receipt' } },
      });
      await api.http.delete(`/v1/webhooks/${hook.body.id}`).set('Authorization', management);
    } finally {
      await receiver.close();
    }
  });
});

describe('scheduled_at and cancel', () => {
  it('holds a scheduled message queued until its time, then delivers it', async () => {
    const peer = await mx('later.test', '127.0.0.3');
    const scheduledAt = new Date(Date.now() + 3_000);
    const accepted = await send({ to: ['ann@later.test'], scheduled_at: scheduledAt.toISOString() });
    expect(accepted.status).toBe(202);
    await sleep(1_500);
    const before = await detail(accepted.body.id);
    expect(before).toMatchObject({ status: 'queued', scheduled_at: scheduledAt.toISOString(), attempts: [] });
    expect(peer.messages).toHaveLength(0);

    const body = await waitForStatus(accepted.body.id, ['accepted']);
    expect(peer.messages).toHaveLength(1);
    expect(new Date(body.attempts[0].started_at).getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
  });

  it('cancels a scheduled message: failed, cause canceled, never delivered', async () => {
    const peer = await mx('canceled.test', '127.0.0.4');
    const accepted = await send({ to: ['ann@canceled.test'], cc: ['bob@canceled.test'], scheduled_at: new Date(Date.now() + 2_000).toISOString() });
    const res = await cancel(accepted.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: accepted.body.id, status: 'failed', cause: { code: 'canceled', permanent: true } });
    expect(res.body.deliveries.map((d: any) => [d.recipient, d.status, d.cause.code, d.attempt_count])).toEqual([
      ['ann@canceled.test', 'failed', 'canceled', 0],
      ['bob@canceled.test', 'failed', 'canceled', 0],
    ]);
    expect(res.body.timestamps.completed_at).not.toBeNull();
    // Canceled twice: nothing is left to cancel.
    expect((await cancel(accepted.body.id)).body.error.code).toBe('email_not_cancelable');
    await sleep(3_500);
    expect(peer.messages).toHaveLength(0);
    expect((await detail(accepted.body.id)).attempts).toEqual([]);
  });

  it('refuses to cancel once a delivery has started (409 email_not_cancelable)', async () => {
    await mx('started.test', '127.0.0.5');
    const accepted = await send({ to: ['ann@started.test'] });
    await waitForStatus(accepted.body.id, ['accepted']);
    const res = await cancel(accepted.body.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('email_not_cancelable');
    expect((await detail(accepted.body.id)).status).toBe('accepted');
  });
});
