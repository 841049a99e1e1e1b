import { pauseSending, resumeSending } from '@mailer/operations';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

/** A paused account over HTTP (docs/api-decisions.md, "Reputation"): 403 sending_paused for new mail, nothing written, until resumed. */
const OPERATOR_TOKEN = 'operator-token-for-tests-0123';
let api: TestApi;
let acme: SendingAccount;
let other: SendingAccount;
beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
  acme = await sendingAccount(api);
  other = await sendingAccount(api, { domain: 'other.test' });
});
afterAll(() => api.close());

const countEmails = async (accountId: string) => (await api.deps.db`select id from emails where account_id = ${accountId}`).length;
const usage = async (accountId: string) => [...(await api.deps.db`select * from account_usage where account_id = ${accountId}`)];
const statusSeries = async (accountId: string) => {
  const res = await api.http.get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
  return res.text.split('\n').filter((l) => l.startsWith(`mailer_account_sending_status{account_id="${accountId}"`));
};

describe('a paused account', () => {
  it('is refused new mail with 403 sending_paused (single and batch), writes nothing, still replays, and takes mail again once resumed', async () => {
    expect((await acme.send(acme.message(), 'before-pause')).status).toBe(202);
    expect(await pauseSending(api.deps.db, acme.accountId, 'abuse desk report #42', new Date())).toMatchObject({
      changed: true,
      sending: { status: 'paused', reason: 'abuse desk report #42' },
    });
    expect(await statusSeries(acme.accountId)).toEqual(
      ['broadcast', 'transactional'].flatMap((stream) => [
        `mailer_account_sending_status{account_id="${acme.accountId}",stream="${stream}",status="enabled"} 0`,
        `mailer_account_sending_status{account_id="${acme.accountId}",stream="${stream}",status="under_review"} 0`,
        `mailer_account_sending_status{account_id="${acme.accountId}",stream="${stream}",status="paused"} 1`,
      ]),
    );
    const emails = await countEmails(acme.accountId);
    const usageBefore = await usage(acme.accountId);

    const refused = await acme.send(acme.message(), 'while-paused');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('sending_paused');
    const batch = await api.http
      .post('/v1/emails/batch')
      .set('Authorization', acme.auth)
      .set('Idempotency-Key', 'batch-while-paused')
      .send([acme.message(), acme.message({ to: ['bo@example.test'] })]);
    expect(batch.status).toBe(403);
    expect(batch.body.error.code).toBe('sending_paused');
    expect(await countEmails(acme.accountId)).toBe(emails);
    expect(await usage(acme.accountId)).toEqual(usageBefore);
    // The answer given before the pause is still the answer to its request; other accounts send on.
    expect((await acme.send(acme.message(), 'before-pause')).headers['idempotent-replayed']).toBe('true');
    expect((await other.send(other.message(), 'other-while-paused')).status).toBe(202);

    // Pausing again changes nothing; resuming takes mail again, under the key the refusal left free.
    expect(await pauseSending(api.deps.db, acme.accountId, 'again', new Date())).toMatchObject({ changed: false, sending: { reason: 'abuse desk report #42' } });
    expect(await resumeSending(api.deps.db, api.deps.deliveryQueue, acme.accountId, 'customer cleaned the list', new Date())).toMatchObject({
      changed: true,
      sending: { status: 'enabled', reason: 'customer cleaned the list' },
    });
    expect((await acme.send(acme.message(), 'while-paused')).status).toBe(202);
    expect(await statusSeries(acme.accountId)).toContain(`mailer_account_sending_status{account_id="${acme.accountId}",stream="transactional",status="enabled"} 1`);
  });

  it('refuses only the paused stream: broadcast paused, transactional mail is taken, and a batch with a broadcast message is refused whole', async () => {
    expect(await pauseSending(api.deps.db, other.accountId, 'digest complaints', new Date(), ['broadcast'])).toMatchObject({ changed: true, sending: { status: 'paused' } });
    const refused = await other.send(other.message({ type: 'broadcast' }));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'sending_paused', message: expect.stringContaining('broadcast') });
    expect((await other.send(other.message())).status).toBe(202);
    const batch = await api.http
      .post('/v1/emails/batch')
      .set('Authorization', other.auth)
      .set('Idempotency-Key', 'mixed-batch')
      .send([other.message(), other.message({ type: 'broadcast' })]);
    expect(batch.status).toBe(403);
    expect(await resumeSending(api.deps.db, api.deps.deliveryQueue, other.accountId, 'cleaned', new Date(), ['broadcast'])).toMatchObject({ changed: true });
    expect((await other.send(other.message({ type: 'broadcast' }))).status).toBe(202);
  });
});
