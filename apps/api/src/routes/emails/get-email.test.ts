import { newId } from '@mailer/domain';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api);
});
afterAll(() => api.close());

const BCC = 'bcc.person@bcc-secret.test';
const bounce = { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1', reply: '550 5.1.1 <cc@example.test> unknown, queue id ABC123' };

describe('GET /v1/emails/{id}', () => {
  it('answers 404 email_not_found for malformed, unknown and other accounts’ ids', async () => {
    const other = await sendingAccount(api, { domain: 'other.test' });
    const foreign = (await other.send(other.message())).body.id;
    for (const id of ['nope', 'em_short', newId('email'), foreign, newId('domain')]) {
      const res = await acme.get(`/v1/emails/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('email_not_found');
    }
  });

  it('shows safe metadata only: deliveries, BCC counts, attempts, events, attachments, cause, timestamps', async () => {
    const sent = await acme.send(
      acme.message({
        to: ['ann@example.test'],
        cc: ['cc@example.test'],
        bcc: [BCC],
        content: { plain: 'secret body text', html: '<p>secret body html</p>' },
        attachments: [
          { filename: 'r.pdf', content_base64: Buffer.from('%PDF').toString('base64') },
          { filename: 'logo.png', content_base64: Buffer.from('png').toString('base64'), content_id: 'logo' },
        ],
      }),
    );
    expect(sent.status).toBe(202);
    const id: string = sent.body.id;
    // What the delivery daemon records after one attempt per recipient domain.
    const started = new Date(Date.now() + 1000);
    const ended = new Date(started.getTime() + 500);
    const { db } = api.deps;
    await db`update deliveries set status = 'accepted', attempt_count = 1, updated_at = ${ended} where recipient = 'ann@example.test'`;
    await db`update deliveries set status = 'bounced', attempt_count = 1, cause = ${db.json(bounce)}, updated_at = ${ended} where recipient = 'cc@example.test'`;
    await db`update deliveries set status = 'deferred', attempt_count = 1, updated_at = ${ended} where recipient = ${BCC}`;
    await db`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause, mx_host) values
        (${newId('attempt')}, ${id}, 1, ${started}, ${ended}, 'bounced', ${db.json(['ann@example.test', 'cc@example.test'])}, 0, true, ${db.json(bounce)}, 'mx1.example.test'),
        (${newId('attempt')}, ${id}, 2, ${started}, ${ended}, 'deferred', ${db.json([BCC])}, 1, false, null, 'mx.bcc-secret.test')`;
    await db`
      insert into events (email_id, type, at, recipient, cause) values
        (${id}, 'accepted', ${ended}, 'ann@example.test', null),
        (${id}, 'bounced', ${ended}, 'cc@example.test', ${db.json(bounce)}),
        (${id}, 'deferred', ${ended}, ${BCC}, null)`;
    await db`update emails set status = 'deferred', cause = ${db.json(bounce)}, updated_at = ${ended} where id = ${id}`;

    const res = await acme.get(`/v1/emails/${id}`);
    expect(res.status).toBe(200);
    const publicCause = { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' };
    expect(res.body).toEqual({
      id,
      status: 'deferred',
      type: 'transactional',
      unsubscribe: false,
      track: { opens: false, clicks: false },
      from: 'Acme <hello@acme.test>',
      to: ['ann@example.test'],
      cc: ['cc@example.test'],
      bcc_count: 1,
      subject: 'Your receipt',
      tags: {},
      test: false,
      reply_to: [],
      scheduled_at: null,
      template: null,
      created_at: sent.body.created_at,
      updated_at: ended.toISOString(),
      cause: publicCause,
      deliveries: [
        { recipient: 'ann@example.test', kind: 'to', status: 'accepted', attempt_count: 1, cause: null, updated_at: ended.toISOString() },
        { recipient: 'cc@example.test', kind: 'cc', status: 'bounced', attempt_count: 1, cause: publicCause, updated_at: ended.toISOString() },
      ],
      bcc_deliveries: { queued: 0, sending: 0, deferred: 1, accepted: 0, bounced: 0, failed: 0 },
      attempts: [
        { number: 1, started_at: started.toISOString(), ended_at: ended.toISOString(), outcome: 'bounced', recipients: ['ann@example.test', 'cc@example.test'], bcc_recipients: 0, tls: true, cause: publicCause },
        { number: 2, started_at: started.toISOString(), ended_at: ended.toISOString(), outcome: 'deferred', recipients: [], bcc_recipients: 1, tls: false, cause: null },
      ],
      events: [
        { type: 'queued', at: sent.body.created_at },
        { type: 'accepted', at: ended.toISOString(), recipient: 'ann@example.test' },
        { type: 'bounced', at: ended.toISOString(), recipient: 'cc@example.test', cause: publicCause },
        { type: 'deferred', at: ended.toISOString() },
      ],
      attachments: [
        { filename: 'r.pdf', content_type: 'application/pdf', size: 4, inline: false },
        { filename: 'logo.png', content_type: 'image/png', size: 3, inline: true },
      ],
      timestamps: { created_at: sent.body.created_at, updated_at: ended.toISOString(), completed_at: null },
    });
    const text = JSON.stringify(res.body);
    for (const secret of ['bcc.person', 'bcc-secret', 'mx1.example.test', 'secret body', 'ABC123', 'JVBERg']) expect(text).not.toContain(secret);
  });
});
