import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount } from '../../testing/sending-account';

// Nothing listens on port 1 of the loopback: connections are refused at once.
const CLOSED = '127.0.0.1:1';

describe('POST /v1/emails while Redis is down', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ REDIS_URL: `redis://${CLOSED}` });
  });
  afterAll(() => api.close());

  it('still accepts durably and logs the message id only', async () => {
    const acme = await sendingAccount(api);
    const res = await acme.send(acme.message({ bcc: ['hidden@bcc-domain.test'] }));
    expect(res.status).toBe(202);
    expect(await api.deps.db`select id from emails where id = ${res.body.id}`).toHaveLength(1);
    const warning = api.logLines().find((line) => line.level === 'warn' && String(line.message).includes('not enqueued'));
    expect(warning).toMatchObject({ email_ids: [res.body.id] });
    expect(JSON.stringify(warning)).not.toContain('bcc-domain');
  });
});

describe('POST /v1/emails while PostgreSQL is down', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('answers 503 service_unavailable with Retry-After', async () => {
    const acme = await sendingAccount(api);
    // The same service, pointed at a database that does not answer.
    const down = await startTestApi({ DATABASE_URL: `postgres://postgres@${CLOSED}/mailer`, REDIS_PREFIX: api.config.redisPrefix });
    try {
      const res = await down.http.post('/v1/emails').set('Authorization', acme.auth).set('Idempotency-Key', 'during-outage').send(acme.message());
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|select|insert/i);
    } finally {
      await down.close();
    }
    expect(await api.deps.db`select id from emails where account_id = ${acme.accountId}`).toHaveLength(0);
    // The key was not consumed: the same request succeeds once the database is back.
    expect((await acme.send(acme.message(), 'during-outage')).status).toBe(202);
  });
});
