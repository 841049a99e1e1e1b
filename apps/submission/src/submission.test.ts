import { randomUUID } from 'node:crypto';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/** Messages submitted with nodemailer's SMTP transport, read back over HTTP as the same resources. */
let h: SubmissionHarness;
let api: TestApi;
let acme: SubmittingAccount;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const queuedId = (response: string) => /^250 2\.0\.0 queued as (em_[0-9A-Za-z]{22})$/.exec(response.trim())?.[1];
const detail = (id: string) => api.http.get(`/v1/emails/${id}`).set('Authorization', `Bearer ${acme.sendingKey}`);

beforeAll(async () => {
  h = await startSubmissionHarness();
  api = await startTestApi({ DATABASE_URL: h.config.databaseUrl, REDIS_PREFIX: h.config.redisPrefix });
  acme = await h.account();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

describe.each([
  ['STARTTLS', false],
  ['implicit TLS', true],
])('a message submitted over %s', (_name, implicitTls) => {
  it('is queued with 250 2.0.0 and the id of the resource GET /v1/emails/{id} shows', async () => {
    const sent = await h.submit(
      acme.sendingKey,
      { from: `Acme Receipts <${acme.sender}>`, to: 'ann@example.test', subject: 'Your receipt', text: 'Thanks for your order.', html: '<p>Thanks for your order.</p>' },
      { implicitTls },
    );
    expect(sent).toMatchObject({ accepted: true, responseCode: 250 });
    const id = queuedId(sent.response)!;
    expect(id).toBeDefined();
    const shown = await detail(id);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id, from: `Acme Receipts <${acme.sender}>`, to: ['ann@example.test'], cc: [], bcc_count: 0, subject: 'Your receipt' });
  });
});

it('reads To and Cc from the headers and makes every other envelope recipient a BCC', async () => {
  const sent = await h.submit(acme.sendingKey, {
    from: acme.sender,
    to: 'ann@example.test',
    cc: ['bob@example.test'],
    bcc: ['hidden@example.net', 'other@example.net'],
    subject: 'Team update',
    text: 'Hello team.',
  });
  const shown = await detail(queuedId(sent.response)!);
  expect(shown.body).toMatchObject({ to: ['ann@example.test'], cc: ['bob@example.test'], bcc_count: 2 });
  expect(JSON.stringify(shown.body)).not.toMatch(/hidden|other@/);
});

it('keeps inline parts by Content-ID, attachments, Reply-To and tags from X-Mailer-Tag', async () => {
  const sent = await h.submit(acme.sendingKey, {
    from: acme.sender,
    to: 'ann@example.test',
    replyTo: 'support@acme.test',
    subject: 'Your invoice',
    html: '<p><img src="cid:logo@acme.test"> Your invoice is attached.</p>',
    attachments: [
      { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@acme.test' },
      { filename: 'invoice.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
    ],
    headers: { 'X-Mailer-Tag': ['category=invoice', 'customer=c-42'] },
  });
  expect(sent.accepted).toBe(true);
  const shown = await detail(queuedId(sent.response)!);
  expect(shown.body.tags).toEqual({ category: 'invoice', customer: 'c-42' });
  expect(shown.body.attachments).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ filename: 'logo.png', content_type: 'image/png', size: PNG.length, inline: true }),
      expect.objectContaining({ filename: 'invoice.csv', inline: false }),
    ]),
  );
});

describe('idempotency', () => {
  const message = (messageId: string, text = 'Your code is 123456.') => ({
    from: acme.sender,
    to: 'ann@example.test',
    subject: `Sign-in code ${messageId}`,
    text,
    messageId,
  });

  it('answers a replayed Message-ID with the first message id and creates nothing', async () => {
    const messageId = `<${randomUUID()}@client.test>`;
    const first = await h.submit(acme.sendingKey, message(messageId));
    const again = await h.submit(acme.sendingKey, message(messageId), { implicitTls: true });
    expect(again).toMatchObject({ accepted: true, responseCode: 250 });
    expect(queuedId(again.response)).toBe(queuedId(first.response));
    const [row] = await h.deps.db`select count(*)::int as n from emails where account_id = ${acme.accountId} and subject = ${`Sign-in code ${messageId}`}`;
    expect(row!.n).toBe(1);
  });

  it('refuses another message under a Message-ID already used (550 5.5.0 idempotency_conflict)', async () => {
    const messageId = `<${randomUUID()}@client.test>`;
    await h.submit(acme.sendingKey, message(messageId));
    const other = await h.submit(acme.sendingKey, message(messageId, 'Your code is 654321.'));
    expect(other).toMatchObject({ accepted: false, responseCode: 550 });
    expect(other.response).toMatch(/^550 5\.5\.0 idempotency_conflict: /);
  });

  it('takes an Idempotency-Key header over the Message-ID', async () => {
    const key = randomUUID();
    const keyed = () => ({ ...message(`<${randomUUID()}@client.test>`), subject: `Sign-in code ${key}`, headers: { 'Idempotency-Key': key } });
    const first = await h.submit(acme.sendingKey, keyed());
    const again = await h.submit(acme.sendingKey, keyed());
    expect(again.accepted).toBe(true);
    expect(queuedId(again.response)).toBe(queuedId(first.response));
  });
});
