import { randomUUID } from 'node:crypto';
import { Resend } from 'resend';
import { insertInboundEmails } from '@mailer/db';
import { newId } from '@mailer/domain';
import { readInboundMessage } from '@mailer/message';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../../testing/sending-account';
import { startTestApi, type TestApi } from '../../testing/test-api';

/** Resend's own SDK against the running API (docs/api-decisions.md, "Resend and Postmark adapters"). */
let api: TestApi;
let acme: SendingAccount;
let resend: Resend;
let baseUrl: string;

beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: GENEROUS_LIMITS });
  baseUrl = `${await api.listen()}/resend`;
  resend = new Resend(acme.sending_key, { baseUrl });
});
afterAll(() => api.close());

const from = () => `Acme <${acme.sender.email}>`;

describe('emails through the Resend SDK', () => {
  it('sends with every field, and the message is the same resource at /v1', async () => {
    const { data, error } = await resend.emails.send({
      from: from(),
      to: ['Ann Example <ann@example.test>', 'bob@example.test'],
      cc: 'Cy <cy@example.test>',
      bcc: ['hidden@example.test'],
      replyTo: 'Support <support@acme.test>',
      subject: 'Every field',
      html: '<p>Hello <img src="cid:logo"></p>',
      text: 'Hello',
      headers: { 'X-Campaign': 'spring' },
      attachments: [
        { filename: 'a.txt', content: Buffer.from('attached') },
        { filename: 'logo.png', content: Buffer.from('png').toString('base64'), contentType: 'image/png', contentId: 'logo' },
      ],
      tags: [{ name: 'kind', value: 'welcome' }],
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(error).toBeNull();
    expect(data!.id).toMatch(/^em_/);

    const v1 = await acme.get(`/v1/emails/${data!.id}`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ to: ['ann@example.test', 'bob@example.test'], cc: ['cy@example.test'], bcc_count: 1, tags: { kind: 'welcome' }, reply_to: ['support@acme.test'] });
    expect(v1.body.deliveries.map((d: { recipient: string }) => d.recipient)).toEqual(['ann@example.test', 'bob@example.test', 'cy@example.test']);
    expect(v1.body.attachments).toEqual([
      { filename: 'a.txt', content_type: 'text/plain', size: 8, inline: false },
      { filename: 'logo.png', content_type: 'image/png', size: 3, inline: true },
    ]);

    const got = await resend.emails.get(data!.id);
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({ object: 'email', id: data!.id, last_event: 'scheduled', html: null, text: null, bcc: null, subject: 'Every field', tags: [{ name: 'kind', value: 'welcome' }] });

    const canceled = await resend.emails.cancel(data!.id);
    expect(canceled).toMatchObject({ data: { object: 'email', id: data!.id }, error: null });
    expect((await resend.emails.get(data!.id)).data!.last_event).toBe('canceled');
    expect((await resend.emails.cancel(data!.id)).error).toMatchObject({ statusCode: 409 });
  });

  it('sends a batch, all or none', async () => {
    const { data, error } = await resend.batch.send([
      { from: from(), to: 'ann@example.test', subject: 'One', text: 'one' },
      { from: from(), to: 'bob@example.test', subject: 'Two', html: '<p>two</p>' },
    ]);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    for (const { id } of data!.data) expect((await acme.get(`/v1/emails/${id}`)).status).toBe(200);

    const refused = await resend.batch.send([
      { from: from(), to: 'ann@example.test', subject: 'One', text: 'one' },
      { from: from(), to: 'not-an-address', subject: 'Two', text: 'two' },
    ]);
    expect(refused.error).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect(refused.error!.message).toContain('[1].to[0]');
    const permissive = await resend.batch.send([{ from: from(), to: 'ann@example.test', subject: 'One', text: 'one' }], { batchValidation: 'permissive' });
    expect(permissive.error!.message).toContain('x-batch-validation');
  });

  it('deduplicates with an Idempotency-Key and not without one', async () => {
    const message = { from: from(), to: 'ann@example.test', subject: 'Once', text: 'once' };
    const key = randomUUID();
    const first = await resend.emails.send(message, { idempotencyKey: key });
    const again = await resend.emails.send(message, { idempotencyKey: key });
    expect(again.data!.id).toBe(first.data!.id);
    const conflict = await resend.emails.send({ ...message, subject: 'Other' }, { idempotencyKey: key });
    expect(conflict.error).toMatchObject({ name: 'invalid_idempotent_request', statusCode: 409 });
    const a = await resend.emails.send(message);
    const b = await resend.emails.send(message);
    expect(a.data!.id).not.toBe(b.data!.id);
  });

  it('lists newest first and pages with after and before', async () => {
    const owner = await sendingAccount(api, { domain: 'pages.test', limits: GENEROUS_LIMITS });
    const client = new Resend(owner.sending_key, { baseUrl });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.unshift((await client.emails.send({ from: owner.sender.email, to: 'ann@example.test', subject: `n${i}`, text: 'x' })).data!.id);
    const first = await client.emails.list({ limit: 2 });
    expect(first.data).toMatchObject({ object: 'list', has_more: true });
    expect(first.data!.data.map((e) => e.id)).toEqual(ids.slice(0, 2));
    const second = await client.emails.list({ limit: 2, after: ids[1]! });
    expect(second.data).toMatchObject({ has_more: false });
    expect(second.data!.data.map((e) => e.id)).toEqual([ids[2]]);
    const back = await client.emails.list({ limit: 2, before: ids[2]! });
    expect(back.data!.data.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect((await client.emails.list({ after: 'em_nope' })).error).toMatchObject({ name: 'invalid_parameter', statusCode: 422 });
  });

  it('answers every refusal in Resend\'s terms', async () => {
    const send = (body: Record<string, unknown>) => resend.emails.send({ from: from(), to: 'ann@example.test', subject: 's', text: 't', ...body } as never);
    const missing = await send({ from: undefined });
    expect(missing.error).toMatchObject({ name: 'missing_required_field', statusCode: 422 });
    expect((await send({ from: 'nobody' })).error).toMatchObject({ name: 'invalid_from_address', statusCode: 422 });
    expect((await send({ from: 'other@acme.test' })).error).toMatchObject({ name: 'validation_error', statusCode: 403 });
    const remote = await send({ attachments: [{ filename: 'a.pdf', path: 'https://example.org/a.pdf' }] });
    expect(remote.error).toMatchObject({ name: 'validation_error' });
    expect(remote.error!.message).toContain('attachments[0].path');
    const text = await send({ text: 5 });
    expect(text.error!.message).toContain('text:');
    expect((await new Resend('svc_live_unknownunknownunknownunknown0', { baseUrl }).emails.send({ from: from(), to: 'a@example.test', subject: 's', text: 't' })).error).toMatchObject({ name: 'invalid_api_key', statusCode: 403 });
    expect((await resend.emails.get('em_missing')).error).toMatchObject({ name: 'not_found', statusCode: 404 });
    expect((await resend.domains.list()).error).toMatchObject({ name: 'restricted_api_key', statusCode: 401 });
    const limited = await sendingAccount(api, { domain: 'limited.test', limits: { ...GENEROUS_LIMITS, perDay: 1 } });
    const tight = new Resend(limited.sending_key, { baseUrl });
    expect((await tight.emails.send({ from: limited.sender.email, to: 'a@example.test', subject: 's', text: 't' })).error).toBeNull();
    expect((await tight.emails.send({ from: limited.sender.email, to: 'b@example.test', subject: 's', text: 't' })).error).toMatchObject({ name: 'daily_quota_exceeded', statusCode: 429 });
  });
});

describe('domains through the Resend SDK', () => {
  it('creates, lists, gets, verifies and deletes with a management key', async () => {
    const admin = new Resend(acme.management_key, { baseUrl });
    const created = await admin.domains.create({ name: 'resend-adapter.test' });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ name: 'resend-adapter.test', status: 'not_started' });
    expect(created.data!.records.map((r) => r.record)).toEqual(expect.arrayContaining(['Ownership', 'DKIM', 'DMARC']));
    const id = created.data!.id;
    expect((await admin.domains.list()).data!.data.map((d) => d.id)).toContain(id);
    expect((await admin.domains.get(id)).data).toMatchObject({ object: 'domain', id, name: 'resend-adapter.test' });
    expect((await admin.domains.verify(id)).data).toEqual({ object: 'domain', id });
    expect((await admin.domains.remove(id)).data).toEqual({ object: 'domain', id, deleted: true });
    expect((await admin.domains.get(id)).error).toMatchObject({ name: 'not_found' });
    const region = await admin.domains.create({ name: 'other.test', region: 'eu-west-1' });
    expect(region.error!.message).toContain('region');
  });

  it('turns opens and clicks on at create and with update, as /v1 tracking, and refuses what it does not do', async () => {
    const admin = new Resend(acme.management_key, { baseUrl });
    const created = await admin.domains.create({ name: 'tracked-resend.test', openTracking: true, trackingSubdomain: 'Links' });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ open_tracking: true, click_tracking: false, tracking_subdomain: 'links' });
    expect(created.data!.records).toContainEqual(expect.objectContaining({ record: 'Tracking', type: 'CNAME', name: 'links.tracked-resend.test' }));
    const id = created.data!.id;
    expect((await admin.domains.update({ id, clickTracking: true, openTracking: false })).data).toEqual({ object: 'domain', id });
    const v1 = await api.http.get(`/v1/domains/${id}`).set('Authorization', `Bearer ${acme.management_key}`);
    expect(v1.body.tracking).toMatchObject({ opens: false, clicks: true, subdomain: 'links', status: 'not_checked' });
    expect((await admin.domains.get(id)).data).toMatchObject({ open_tracking: false, click_tracking: true, tracking_subdomain: 'links' });

    const tls = await admin.domains.update({ id, tls: 'enforced' });
    expect(tls.error).toMatchObject({ statusCode: 422 });
    expect(tls.error!.message).toContain('tls');
    const label = await admin.domains.update({ id, trackingSubdomain: 'a.b' });
    expect(label.error!.message).toContain('tracking_subdomain');
    expect((await admin.domains.get(id)).data).toMatchObject({ click_tracking: true, tracking_subdomain: 'links' });
    expect((await admin.domains.update({ id: 'dom_unknown', openTracking: true })).error).toMatchObject({ name: 'not_found' });
  });
});

describe('templates through the Resend SDK', () => {
  it('sends by template id or alias, alone and in a batch, rendered at intake as /v1 does, and refuses as /v1 does', async () => {
    const created = await api.http.post('/v1/templates').set('Authorization', `Bearer ${acme.management_key}`).send({ name: 'Welcome', alias: 'resend-welcome', subject: 'Hi {{name}}', html: '<p>Hello {{name}}</p>' });
    expect(created.status).toBe(201);
    const byAlias = await resend.emails.send({ from: from(), to: 'ann@example.test', template: { id: 'resend-welcome', variables: { name: 'Ann' } } });
    expect(byAlias.error).toBeNull();
    const detail = (await acme.get(`/v1/emails/${byAlias.data!.id}`)).body;
    expect(detail).toMatchObject({ subject: 'Hi Ann', template: { id: created.body.id, version: 1 } });
    const batch = await resend.batch.send([
      { from: from(), to: 'bob@example.test', template: { id: created.body.id, variables: { name: 'Bob' } } },
      { from: from(), to: 'cy@example.test', subject: 'Plain', text: 'no template' },
    ]);
    expect(batch.error).toBeNull();
    expect((await acme.get(`/v1/emails/${batch.data!.data[0]!.id}`)).body).toMatchObject({ subject: 'Hi Bob', template: { id: created.body.id } });

    const missing = await resend.emails.send({ from: from(), to: 'ann@example.test', template: { id: 'resend-welcome' } });
    expect(missing.error).toMatchObject({ statusCode: 422, message: expect.stringContaining('template.variables') });
    const unknown = await resend.emails.send({ from: from(), to: 'ann@example.test', template: { id: 'no-such-template' } });
    expect(unknown.error).toMatchObject({ statusCode: 422, name: 'validation_error', message: expect.stringContaining('template.id') });
    const both = await resend.emails.send({ from: from(), to: 'ann@example.test', subject: 'Mine', template: { id: 'resend-welcome', variables: { name: 'Ann' } } });
    expect(both.error).toMatchObject({ statusCode: 422, message: expect.stringContaining('template') });
  });

  it('replays a keyed request after its template was deleted; without a key the send is refused', async () => {
    const created = await api.http.post('/v1/templates').set('Authorization', `Bearer ${acme.management_key}`).send({ name: 'Gone', subject: 'Hi {{name}}', text: 'Hello {{name}}' });
    const message = { from: from(), to: 'ann@example.test', template: { id: created.body.id, variables: { name: 'Ann' } } };
    const key = randomUUID();
    const first = await resend.emails.send(message, { idempotencyKey: key });
    expect(first.error).toBeNull();
    await api.http.delete(`/v1/templates/${created.body.id}`).set('Authorization', `Bearer ${acme.management_key}`);
    const again = await resend.emails.send(message, { idempotencyKey: key });
    expect(again).toMatchObject({ error: null, data: { id: first.data!.id } });
    expect((await resend.emails.send(message)).error).toMatchObject({ statusCode: 422, name: 'validation_error', message: expect.stringContaining('template.id') });
  });
});

describe('receiving through the Resend SDK', () => {
  it('lists and reads received messages with a management key, as GET /v1/inbound/emails does', async () => {
    const mgmt = `Bearer ${acme.management_key}`;
    const route = await api.http.post('/v1/inbound/routes').set('Authorization', mgmt).send({ pattern: '*@acme.test' });
    expect(route.status).toBe(201);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const raw = Buffer.from(
        `From: "Doe, Ann" <ann@client.test>\r\nTo: support@acme.test\r\nCc: cy@client.test\r\nSubject: Help ${n}\r\nMessage-ID: <m${n}@client.test>\r\n` +
          'Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nHello\r\n--x\r\nContent-Type: text/csv; name=a.csv\r\n\r\na,b\r\n--x--\r\n',
      );
      const email = { id: newId('inboundEmail'), accountId: acme.accountId, routeId: route.body.id, mailFrom: 'ann@client.test', recipients: ['support@acme.test'], message: await readInboundMessage(raw), size: raw.length, createdAt: new Date(Date.now() + n) };
      const auth = { spf: { result: 'none', domain: null }, dkim: { result: 'none', signatures: [] }, dmarc: { result: 'none', domain: null, policy: null }, arc: { result: 'none' } };
      await insertInboundEmails(api.deps.db, [{ ...email, auth, remoteAddress: '127.0.0.1', raw, webhookId: null, event: {} }]);
      ids.unshift(email.id);
    }
    const admin = new Resend(acme.management_key, { baseUrl });
    const first = await admin.emails.receiving.list({ limit: 2 });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ object: 'list', has_more: true });
    expect(first.data!.data.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect((await admin.emails.receiving.list({ limit: 2, after: ids[1]! })).data).toMatchObject({ has_more: false, data: [{ id: ids[2] }] });

    const got = await admin.emails.receiving.get(ids[0]!, { html_format: 'cid' });
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({
      object: 'email',
      id: ids[0],
      from: 'Doe, Ann <ann@client.test>',
      to: ['support@acme.test'],
      cc: ['cy@client.test'],
      bcc: null,
      subject: 'Help 3',
      received_for: ['support@acme.test'],
      message_id: '<m3@client.test>',
      text: 'Hello',
      headers: { Subject: 'Help 3' },
      attachments: [{ filename: 'a.csv', content_type: 'text/csv', size: 3, content_disposition: null }],
    });
    expect((await admin.emails.receiving.get(ids[0]!)).data!.id).toBe(ids[0]);
    expect((await admin.emails.receiving.get(ids[0]!, { html_format: 'data_uri' })).error).toMatchObject({ statusCode: 422, message: expect.stringContaining('html_format') });
    expect((await admin.emails.receiving.get('inb_unknown')).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.emails.receiving.list()).error).toMatchObject({ statusCode: 401, name: 'restricted_api_key' });
  });
});

describe('rescheduling through the Resend SDK', () => {
  it('moves a scheduled message with emails.update, as PATCH /v1/emails/{id}, and refuses as /v1 does', async () => {
    const { data } = await resend.emails.send({ from: from(), to: 'ann@example.test', subject: 'Later', text: 'x', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 7_200_000).toISOString();
    expect(await resend.emails.update({ id: data!.id, scheduledAt: later })).toMatchObject({ data: { object: 'email', id: data!.id }, error: null });
    expect((await acme.get(`/v1/emails/${data!.id}`)).body).toMatchObject({ status: 'queued', scheduled_at: later });
    expect((await resend.emails.update({ id: data!.id, scheduledAt: 'in an hour' })).error).toMatchObject({ statusCode: 422, name: 'validation_error', message: expect.stringContaining('scheduled_at') });
    expect((await resend.emails.update({ id: 'em_doesnotexist0000000000', scheduledAt: later })).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    await resend.emails.cancel(data!.id);
    expect((await resend.emails.update({ id: data!.id, scheduledAt: later })).error).toMatchObject({ statusCode: 409, name: 'validation_error' });
  });
});
