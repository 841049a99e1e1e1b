import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi({ LOG_LEVEL: 'warn' });
  acme = await sendingAccount(api, { limits: { perMinute: 100_000, perHour: 100_000, perDay: 100_000, per30Days: 100_000, maxActive: 100_000 } });
});
afterAll(() => api.close());

const noServerError = async (body: unknown) => {
  const res = await api.http
    .post('/v1/emails')
    .set('Authorization', acme.auth)
    .set('Idempotency-Key', randomUUID())
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body) ?? 'null');
  expect(res.status).toBeLessThan(500);
  if (res.status === 422) expect(res.body.error.details.length).toBeGreaterThan(0);
};

const hostile = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', 'a\r\nb', '=?utf-8?q?x?=', '"@x.test', '<a@b.test>', 'x@[127.0.0.1]', '𝔘@bücher.de', 'a'.repeat(300)),
);

describe('POST /v1/emails never answers 5xx', () => {
  it('for arbitrary JSON bodies', async () => {
    await fc.assert(fc.asyncProperty(fc.jsonValue(), noServerError), { numRuns: 150 });
  });

  it('for hostile values around a valid body', async () => {
    const member = fc.constantFrom('from', 'to', 'cc', 'bcc', 'type', 'subject', 'content', 'attachments', 'extra');
    await fc.assert(
      fc.asyncProperty(fc.dictionary(member, hostile), (changes) => noServerError(acme.message(changes))),
      { numRuns: 200 },
    );
  });

  it('for hostile values inside content, recipients and attachments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            to: fc.array(hostile, { maxLength: 4 }),
            cc: fc.array(fc.emailAddress(), { maxLength: 3 }),
            content: fc.dictionary(fc.constantFrom('plain', 'html', 'text'), hostile),
            attachments: fc.array(
              fc.dictionary(fc.constantFrom('filename', 'content_base64', 'content_type', 'content_id', 'size'), fc.oneof(hostile, fc.base64String())),
              { maxLength: 3 },
            ),
          },
          { requiredKeys: [] },
        ),
        (changes) => noServerError(acme.message(changes)),
      ),
      { numRuns: 200 },
    );
  });
});
