import { claimMessages } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

/** POST /v1/emails/{id}/cancel (docs/api-decisions.md, "Scheduled send and cancel"); with a daemon: apps/worker send-api-additions.test.ts. */
let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  acme = await sendingAccount(api, { limits: { perMinute: 1000, perHour: 1000, perDay: 1000, per30Days: 1000, maxActive: 2 } });
});
afterAll(() => api.close());

const cancel = (id: string, auth = acme.auth) => api.http.post(`/v1/emails/${id}/cancel`).set('Authorization', auth);
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('POST /v1/emails/{id}/cancel', () => {
  it('ends every waiting delivery failed/canceled with events and webhooks, leaves suppressed ones, and frees the active deliveries', async () => {
    const mgmt = `Bearer ${acme.management_key}`;
    expect((await api.http.post('/v1/suppressions').set('Authorization', mgmt).send({ email: 'gone@example.test' })).status).toBe(201);
    const hook = await api.http.post('/v1/webhooks').set('Authorization', mgmt).send({ url: 'http://127.0.0.1:9/hook', events: ['email.failed'] });
    expect(hook.status).toBe(201);
    const sent = await acme.send(acme.message({ to: ['ann@example.test', 'gone@example.test'], bcc: 'hidden@example.test', scheduled_at: inAnHour() }));
    expect(sent.status).toBe(202);
    // The plan's two active deliveries are taken (the suppressed one counts none).
    expect((await acme.send(acme.message({ to: 'more@example.test' }))).body.error.code).toBe('active_delivery_limit_exceeded');

    const res = await cancel(sent.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sent.body.id, status: 'failed', bcc_deliveries: { failed: 1, queued: 0 } });
    expect(res.body.deliveries.map((d: { recipient: string; cause: { code: string } }) => [d.recipient, d.cause.code])).toEqual([
      ['ann@example.test', 'canceled'],
      ['gone@example.test', 'recipient_suppressed'],
    ]);
    expect(res.body.events.filter((e: { type: string }) => e.type === 'failed').map((e: { recipient?: string; cause: { code: string } }) => [e.recipient, e.cause.code])).toEqual(
      expect.arrayContaining([
        ['ann@example.test', 'canceled'],
        [undefined, 'canceled'],
      ]),
    );
    const webhooks = await api.deps.db`select recipient, recipient_kind, cause from webhook_events where email_id = ${sent.body.id} and type = 'email.failed' order by recipient_kind`;
    expect(webhooks.filter((w) => w.cause.code === 'canceled').map((w) => [w.recipient_kind, w.recipient])).toEqual([
      ['bcc', null],
      ['to', 'ann@example.test'],
    ]);
    const [sender] = await api.deps.db`select failed_count from senders where id = ${acme.sender.id}`;
    expect(sender!.failed_count).toBe(3);
    expect((await acme.send(acme.message({ to: ['one@example.test', 'two@example.test'] }))).status).toBe(202);
  });

  it('answers 409 email_not_cancelable once a delivery is leased', async () => {
    const other = await sendingAccount(api, { domain: 'leased-cancel.test' });
    const sent = await other.send(other.message({ to: 'lease@example.test' }));
    await claimMessages(api.deps.db, [sent.body.id], new Date(), 60_000);
    const res = await cancel(sent.body.id, other.auth);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('email_not_cancelable');
    expect((await other.get(`/v1/emails/${sent.body.id}`)).body.status).toBe('sending');
  });

  it('is decided against a concurrent claim: the message is either canceled and never leased, or leased and not canceled', async () => {
    const racer = await sendingAccount(api, { domain: 'race-cancel.test', limits: { perMinute: 1000, perHour: 1000, perDay: 1000, per30Days: 1000, maxActive: 1000 } });
    for (let i = 0; i < 20; i++) {
      const sent = await racer.send(racer.message({ to: `r${i}@example.test` }));
      const [res, claims] = await Promise.all([cancel(sent.body.id, racer.auth), claimMessages(api.deps.db, [sent.body.id], new Date(), 60_000)]);
      const leased = claims.get(sent.body.id)!.lease.deliveries.length;
      const status = (await racer.get(`/v1/emails/${sent.body.id}`)).body.status;
      if (res.status === 200) expect([leased, status]).toEqual([0, 'failed']);
      else expect([res.status, leased, status]).toEqual([409, 1, 'sending']);
    }
  });

  it('answers 404 email_not_found for unknown, malformed and other accounts’ ids', async () => {
    const other = await sendingAccount(api, { domain: 'other-cancel.test' });
    const theirs = await other.send(other.message({ scheduled_at: inAnHour() }));
    for (const id of ['em_doesnotexist0000000000', 'nope', theirs.body.id]) {
      const res = await cancel(id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('email_not_found');
    }
    expect((await other.get(`/v1/emails/${theirs.body.id}`)).body.status).toBe('queued');
  });
});
