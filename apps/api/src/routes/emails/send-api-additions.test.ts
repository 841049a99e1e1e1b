import { deliverMessageJobId } from '@mailer/queue';
import { intakeTestBed } from '../../testing/sending-account';

/** reply_to, single-string recipients, headers, tags and scheduled_at on POST /v1/emails (docs/api-decisions.md, "Send API additions"). */
const bed = intakeTestBed();

async function expectInvalid(overrides: Record<string, unknown>, details: { path: string; message: string | RegExp }[]) {
  const res = await bed.acme.send(bed.acme.message(overrides));
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(details.map((d) => d.path));
  for (const [i, detail] of details.entries()) expect(res.body.error.details[i].message).toMatch(detail.message);
}

describe('recipients and reply_to as a string or an array', () => {
  it('accepts a single string for to, cc, bcc and reply_to, normalized as in arrays', async () => {
    const res = await bed.acme.send(bed.acme.message({ to: 'Ann@Example.TEST', cc: 'cc@example.test', bcc: 'hidden@example.test', reply_to: 'Help@Acme.TEST' }));
    expect(res.status).toBe(202);
    const detail = (await bed.acme.get(`/v1/emails/${res.body.id}`)).body;
    expect(detail).toMatchObject({ to: ['Ann@example.test'], cc: ['cc@example.test'], bcc_count: 1, reply_to: ['Help@acme.test'] });
  });

  it('accepts an array for reply_to, collapsing duplicates', async () => {
    const res = await bed.acme.send(bed.acme.message({ reply_to: ['a@acme.test', 'A@ACME.test', 'b@acme.test'] }));
    expect(res.status).toBe(202);
    expect((await bed.acme.get(`/v1/emails/${res.body.id}`)).body.reply_to).toEqual(['a@acme.test', 'b@acme.test']);
  });

  it('refuses invalid addresses, other types, and more than 50 reply-to addresses', async () => {
    await expectInvalid({ to: 'not an address' }, [{ path: 'to[0]', message: 'not a valid email address' }]);
    await expectInvalid({ to: 42 }, [{ path: 'to', message: /email address/ }]);
    await expectInvalid({ to: [] }, [{ path: 'to', message: 'must have at least one recipient' }]);
    await expectInvalid({ reply_to: ['ok@acme.test', 'bad'] }, [{ path: 'reply_to[1]', message: 'not a valid email address' }]);
    await expectInvalid({ reply_to: 'a"<b>"@acme.test' }, [{ path: 'reply_to[0]', message: 'not a valid email address' }]);
    await expectInvalid({ reply_to: { address: 'a@acme.test' } }, [{ path: 'reply_to', message: /email address/ }]);
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@acme.test`);
    await expectInvalid({ reply_to: many }, [{ path: 'reply_to', message: 'at most 50 addresses' }]);
  });
});

describe('headers', () => {
  it('accepts X- fields and the list and threading fields', async () => {
    const res = await bed.acme.send(
      bed.acme.message({
        headers: {
          'X-Entity-Ref-ID': 'abc-123',
          'List-Unsubscribe': '<https://acme.test/u/1>',
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'List-Id': 'News <news.acme.test>',
          References: '<a@acme.test>',
          'In-Reply-To': '<a@acme.test>',
        },
      }),
    );
    expect(res.status).toBe(202);
  });

  it('refuses other names, CR/LF/NUL, non-strings, over-long values, more than 50 fields and a broken one-click pair', async () => {
    await expectInvalid({ headers: { From: 'x@acme.test', Bcc: 'x@acme.test' } }, [
      { path: 'headers.From', message: /not an allowed header name/ },
      { path: 'headers.Bcc', message: /not an allowed header name/ },
    ]);
    await expectInvalid({ headers: { 'X-A': 'a\r\nBcc: victim@example.test' } }, [{ path: 'headers.X-A', message: 'must not contain CR, LF or NUL' }]);
    await expectInvalid({ headers: { 'X-A': 'a\nb' } }, [{ path: 'headers.X-A', message: 'must not contain CR, LF or NUL' }]);
    await expectInvalid({ headers: { 'X-A': 'a\u0000b' } }, [{ path: 'headers.X-A', message: 'must not contain NUL (U+0000)' }]);
    await expectInvalid({ headers: { 'X-A': 1 } }, [{ path: 'headers.X-A', message: 'must be a string' }]);
    await expectInvalid({ headers: ['X-A: b'] }, [{ path: 'headers', message: /object/ }]);
    await expectInvalid({ headers: { 'X-A': 'a'.repeat(999) } }, [{ path: 'headers.X-A', message: /998 octets/ }]);
    await expectInvalid({ headers: { 'X-A': '1', 'x-a': '2' } }, [{ path: 'headers.x-a', message: /same header field/ }]);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
    await expectInvalid({ headers: many }, [{ path: 'headers', message: 'at most 50 header fields' }]);
    await expectInvalid({ headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }, [
      { path: 'headers.List-Unsubscribe-Post', message: /needs a List-Unsubscribe/ },
    ]);
    await expectInvalid({ headers: { 'List-Unsubscribe': `<https://acme.test/${'a'.repeat(970)}>` } }, [
      { path: 'headers.List-Unsubscribe', message: /too long to fold/ },
    ]);
  });

  it('refuses a lone surrogate in a header value, pointing at it', async () => {
    const res = await bed.api.http
          .post('/v1/emails')
          .set('Authorization', bed.acme.auth)
          .set('Idempotency-Key', 'surrogate-header')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(bed.acme.message({ headers: { 'X-A': 'PLACEHOLDER' }, tags: { k: 'PLACEHOLDER2' } })).replace('PLACEHOLDER2', '\\udc00').replace('PLACEHOLDER', '\\ud800'));
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['headers.X-A', 'tags.k']);
    const key = await bed.api.http
      .post('/v1/emails')
      .set('Authorization', bed.acme.auth)
      .set('Idempotency-Key', 'surrogate-tag-name')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(bed.acme.message({ tags: { NAME: 'v' } })).replace('NAME', 'k\\udfff'));
    expect(key.status).toBe(422);
    expect(key.body.error.details).toEqual([{ path: 'tags.k\ufffd', message: expect.stringContaining('member name') }]);
  });
});

describe('tags', () => {
  it('are shown in the list item and the detail', async () => {
    const res = await bed.acme.send(bed.acme.message({ tags: { campaign: 'winter', 'user_id-2': 'u_1' } }));
    expect(res.status).toBe(202);
    expect((await bed.acme.get(`/v1/emails/${res.body.id}`)).body.tags).toEqual({ campaign: 'winter', 'user_id-2': 'u_1' });
    const listed = (await bed.acme.get('/v1/emails?limit=100')).body.data.find((e: { id: string }) => e.id === res.body.id);
    expect(listed.tags).toEqual({ campaign: 'winter', 'user_id-2': 'u_1' });
  });

  it('refuses more than 10, bad names, long or non-string values', async () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`t${i}`, 'v']));
    await expectInvalid({ tags: eleven }, [{ path: 'tags', message: 'at most 10 tags' }]);
    await expectInvalid({ tags: { 'bad key': 'v' } }, [{ path: 'tags.bad key', message: /1 to 64/ }]);
    await expectInvalid({ tags: { ['k'.repeat(65)]: 'v' } }, [{ path: `tags.${'k'.repeat(65)}`, message: /1 to 64/ }]);
    await expectInvalid({ tags: { k: 'v'.repeat(257) } }, [{ path: 'tags.k', message: 'must be at most 256 characters' }]);
    await expectInvalid({ tags: { k: 5 } }, [{ path: 'tags.k', message: 'must be a string' }]);
    await expectInvalid({ tags: 'k:v' }, [{ path: 'tags', message: /object/ }]);
    expect((await bed.acme.send(bed.acme.message({ tags: { k: '😀'.repeat(256) } }))).status).toBe(202);
  });
});

describe('scheduled_at', () => {
  afterEach(() => (bed.api.clock.now = undefined));

  it('stores the message queued, due then: its job waits for it and the detail shows it', async () => {
    const now = new Date();
    bed.api.clock.now = now;
    const scheduledAt = new Date(now.getTime() + 7 * 24 * 3600_000);
    const res = await bed.acme.send(bed.acme.message({ scheduled_at: scheduledAt.toISOString().replace('.000Z', 'Z') }));
    expect(res.status).toBe(202);
    const detail = (await bed.acme.get(`/v1/emails/${res.body.id}`)).body;
    expect(detail).toMatchObject({ status: 'queued', scheduled_at: scheduledAt.toISOString(), deliveries: [{ status: 'queued' }] });
    const job = await bed.api.deps.deliveryQueue.queue.getJob(deliverMessageJobId(res.body.id, scheduledAt));
    expect(job?.opts.delay).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
    // Its deliveries are owed from then: their age (retries, latency) counts from scheduled_at.
    const deliveries = await bed.api.deps.db`select next_attempt_at, created_at from deliveries where email_id = ${res.body.id}`;
    expect(deliveries).toEqual([{ next_attempt_at: scheduledAt, created_at: scheduledAt }]);
  });

  it('takes any RFC 3339 offset, and a past instant as now', async () => {
    const now = new Date('2031-03-01T12:00:00.000Z');
    bed.api.clock.now = now;
    const offset = await bed.acme.send(bed.acme.message({ scheduled_at: '2031-03-01T15:00:00.5+02:00' }));
    expect((await bed.acme.get(`/v1/emails/${offset.body.id}`)).body.scheduled_at).toBe('2031-03-01T13:00:00.500Z');
    const past = await bed.acme.send(bed.acme.message({ scheduled_at: '2031-03-01T11:00:00Z' }));
    expect(past.status).toBe(202);
    expect(await bed.api.deps.deliveryQueue.queue.getJob(deliverMessageJobId(past.body.id, now))).toBeDefined();
  });

  it('refuses more than 7 days ahead and anything not an RFC 3339 date-time', async () => {
    const now = new Date('2031-03-01T12:00:00.000Z');
    bed.api.clock.now = now;
    await expectInvalid({ scheduled_at: '2031-03-08T12:00:00.001Z' }, [{ path: 'scheduled_at', message: 'must be at most 7 days ahead' }]);
    for (const bad of ['2031-03-02', '2031-03-02T10:00:00', 'in 1 hour', '2031-02-30T10:00:00Z']) {
      await expectInvalid({ scheduled_at: bad }, [{ path: 'scheduled_at', message: /RFC 3339/ }]);
    }
    await expectInvalid({ scheduled_at: 1_900_000_000 }, [{ path: 'scheduled_at', message: /RFC 3339/ }]);
  });

  it('refuses an instant outside years 0001..9999 once its offset is applied, with 422 rather than a database error', async () => {
    for (const outside of ['0000-01-01T00:00:00+01:00', '0001-01-01T00:30:00+05:00']) {
      await expectInvalid({ scheduled_at: outside }, [{ path: 'scheduled_at', message: /years 0001 to 9999/ }]);
    }
  });
});
