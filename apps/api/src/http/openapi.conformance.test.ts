import type { Response } from 'supertest';
import { createManagementKey, insertInboundEmails } from '@mailer/db';
import { daysSinceEpoch, newId, signLinkToken } from '@mailer/domain';
import { readInboundMessage } from '@mailer/message';
import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { apiRoutes } from '../routes';
import { startTestApi, type TestApi } from '../testing';
import { apiDocument } from '../testing/openapi-traffic';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../testing/sending-account';

/**
 * Drives every operation through the test API, whose agent checks each request and answer
 * against the document (testing/openapi-traffic.ts), and records which were driven to a success.
 */
const OPERATOR_TOKEN = 'operator-token-for-conformance-0123';
const covered = new Map<string, Set<number>>();

/** Records the answer of `method path` (already checked against the document by the agent). */
function conforms(res: Response, method: string, path: string): Response {
  const operation = apiDocument.paths[path]?.[method];
  if (!operation) throw new Error(`${method} ${path} is not documented`);
  covered.set(operation.operationId, (covered.get(operation.operationId) ?? new Set()).add(res.status));
  return res;
}

let api: TestApi;
let dns: TestDnsServer;
let acme: SendingAccount;
let mgmt: string;

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ OPERATOR_TOKEN, DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms' });
  acme = await sendingAccount(api, { limits: { perMinute: 2 } });
  mgmt = `Bearer ${acme.management_key}`;
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

describe('every answer conforms to /openapi.json', () => {
  it('operations', async () => {
    conforms(await api.http.get('/healthz'), 'get', '/healthz');
    conforms(await api.http.get('/readyz'), 'get', '/readyz');
    conforms(await api.http.get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`), 'get', '/metrics');
    conforms(await api.http.get('/metrics').auth('prometheus', OPERATOR_TOKEN), 'get', '/metrics');
    conforms(await api.http.get('/metrics'), 'get', '/metrics');
    conforms(await api.http.get('/openapi.json'), 'get', '/openapi.json');
    conforms(await api.http.get('/docs'), 'get', '/docs');
    conforms(await api.http.get('/docs/redoc.standalone.js'), 'get', '/docs/redoc.standalone.js');
  });

  it('unsubscribe', async () => {
    const sent = await acme.send(acme.message({ to: ['reader@example.test'] }), 'conformance-unsubscribe');
    // As the daemon leaves a delivery a remote server accepted.
    const [delivery] = await api.deps.db`update deliveries set status = 'accepted' where email_id = ${sent.body.id} returning id`;
    const token = signLinkToken({ deliveryId: delivery!.id, use: 'unsubscribe', link: 0, issuedDay: daysSinceEpoch(new Date()) }, api.config.encryptionKey);
    expect(conforms(await api.http.get(`/u/${token}`), 'get', '/u/{token}').status).toBe(200);
    expect(conforms(await api.http.post(`/u/${token}`).type('form').send('List-Unsubscribe=One-Click'), 'post', '/u/{token}').status).toBe(200);
    expect(conforms(await api.http.post('/u/forged').type('form').send('List-Unsubscribe=One-Click'), 'post', '/u/{token}').status).toBe(404);
    expect(conforms(await api.http.get('/u/forged'), 'get', '/u/{token}').status).toBe(404);
  });

  it('tracking', async () => {
    const html = '<p><a href="https://shop.example.test/sale">Sale</a></p>';
    const sent = await acme.send(acme.message({ to: ['reader@example.test'], content: { html }, track: { opens: true, clicks: true } }), 'conformance-tracking');
    const [delivery] = await api.deps.db`update deliveries set status = 'accepted' where email_id = ${sent.body.id} returning id`;
    const token = (use: 'open' | 'click') => signLinkToken({ deliveryId: delivery!.id, use, link: 0, issuedDay: daysSinceEpoch(new Date()) }, api.config.encryptionKey);
    expect(conforms(await api.http.get(`/o/${token('open')}`), 'get', '/o/{token}').status).toBe(200);
    expect(conforms(await api.http.get('/o/forged'), 'get', '/o/{token}').status).toBe(200);
    expect(conforms(await api.http.get(`/c/${token('click')}`), 'get', '/c/{token}').status).toBe(302);
    expect(conforms(await api.http.get('/c/forged'), 'get', '/c/{token}').status).toBe(404);
  });

  it('emails', async () => {
    const sent = conforms(await acme.send(acme.message(), 'conformance-1'), 'post', '/v1/emails');
    expect(sent.status).toBe(202);
    expect(conforms(await acme.send(acme.message(), 'conformance-1'), 'post', '/v1/emails').headers['idempotent-replayed']).toBe('true');
    conforms(await acme.send(acme.message({ subject: 'other' }), 'conformance-1'), 'post', '/v1/emails');
    conforms(await acme.send(acme.message({ to: ['not an address'], cc: 'x' })), 'post', '/v1/emails');
    conforms(await acme.send(acme.message({ from: 'nobody@acme.test' })), 'post', '/v1/emails');
    conforms(await api.http.post('/v1/emails').set('Authorization', acme.auth).send(acme.message()), 'post', '/v1/emails');
    conforms(await api.http.post('/v1/emails').set('Authorization', mgmt).set('Idempotency-Key', 'k').send(acme.message()), 'post', '/v1/emails');
    conforms(await api.http.post('/v1/emails').set('Authorization', 'Bearer nope').send(acme.message()), 'post', '/v1/emails');
    const rawPost = () => api.http.post('/v1/emails').set('Authorization', acme.auth).set('Idempotency-Key', 'raw');
    conforms(await rawPost().set('Content-Type', 'text/plain').send('hello'), 'post', '/v1/emails');
    conforms(await rawPost().set('Content-Type', 'application/json').send('{"from":'), 'post', '/v1/emails');
    conforms(await acme.send(acme.message()), 'post', '/v1/emails');
    expect(conforms(await acme.send(acme.message()), 'post', '/v1/emails').status).toBe(429);

    const page = conforms(await acme.get('/v1/emails?limit=1'), 'get', '/v1/emails');
    conforms(await acme.get(`/v1/emails?limit=1&cursor=${page.body.next_cursor}`), 'get', '/v1/emails');
    conforms(await acme.get('/v1/emails?limit=0'), 'get', '/v1/emails');
    conforms(await acme.get('/v1/emails?cursor=forged'), 'get', '/v1/emails');
    conforms(await acme.get(`/v1/emails/${sent.body.id}`), 'get', '/v1/emails/{id}');
    conforms(await acme.get('/v1/emails/em_unknown'), 'get', '/v1/emails/{id}');
  });

  it('batches, filters and cancel', async () => {
    const shop = await sendingAccount(api, { domain: 'conformance-batch.test' });
    const batchPost = (body: unknown, key?: string) => {
      const req = api.http.post('/v1/emails/batch').set('Authorization', shop.auth);
      return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body as object);
    };
    const later = new Date(Date.now() + 3600_000).toISOString();
    const items = [
      shop.message({
        to: 'ann@example.test',
        reply_to: 'help@conformance-batch.test',
        headers: { 'List-Unsubscribe': '<https://conformance-batch.test/u>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        tags: { campaign: 'spring' },
        scheduled_at: later,
      }),
      shop.message(),
    ];
    const batched = conforms(await batchPost(items, 'batch-1'), 'post', '/v1/emails/batch');
    expect(batched.status).toBe(202);
    expect(conforms(await batchPost(items, 'batch-1'), 'post', '/v1/emails/batch').headers['idempotent-replayed']).toBe('true');
    conforms(await batchPost([shop.message()], 'batch-1'), 'post', '/v1/emails/batch');
    conforms(await batchPost([shop.message({ to: 'bad' })], 'batch-2'), 'post', '/v1/emails/batch');
    conforms(await batchPost([shop.message({ from: 'nobody@conformance-batch.test' })], 'batch-3'), 'post', '/v1/emails/batch');
    conforms(await batchPost([shop.message()]), 'post', '/v1/emails/batch');
    const many = Array.from({ length: 29 }, (_, i) => `r${i}@example.test`);
    expect(conforms(await batchPost([shop.message({ to: many })], 'batch-4'), 'post', '/v1/emails/batch').status).toBe(429);

    conforms(await shop.get(`/v1/emails?status=queued&tag=campaign:spring&created_after=2020-01-01T00:00:00Z&limit=1`), 'get', '/v1/emails');
    conforms(await shop.get('/v1/emails?status=sent'), 'get', '/v1/emails');
    const scheduled = conforms(await shop.get(`/v1/emails/${batched.body.data[0].id}`), 'get', '/v1/emails/{id}');
    expect(scheduled.body.scheduled_at).toBe(later);

    const reschedule = (id: string, body: object) => api.http.patch(`/v1/emails/${id}`).set('Authorization', shop.auth).send(body);
    expect(conforms(await reschedule(batched.body.data[0].id, { scheduled_at: later }), 'patch', '/v1/emails/{id}').status).toBe(200);
    expect(conforms(await reschedule(batched.body.data[0].id, { scheduled_at: 'soon' }), 'patch', '/v1/emails/{id}').status).toBe(422);
    conforms(await reschedule('em_unknown', { scheduled_at: later }), 'patch', '/v1/emails/{id}');
    const cancel = (id: string) => api.http.post(`/v1/emails/${id}/cancel`).set('Authorization', shop.auth);
    expect(conforms(await cancel(batched.body.data[0].id).send({}), 'post', '/v1/emails/{id}/cancel').status).toBe(200);
    expect(conforms(await cancel(batched.body.data[0].id), 'post', '/v1/emails/{id}/cancel').status).toBe(409);
    conforms(await cancel('em_unknown'), 'post', '/v1/emails/{id}/cancel');
    conforms(await cancel('em_unknown').send({ reason: 'x' }), 'post', '/v1/emails/{id}/cancel');
    expect(conforms(await cancel(batched.body.data[1].id).send({ reason: 'x' }), 'post', '/v1/emails/{id}/cancel').status).toBe(422);
    conforms(await api.http.post(`/v1/emails/${batched.body.data[1].id}/cancel`).set('Authorization', mgmt), 'post', '/v1/emails/{id}/cancel');
  });

  it('domains and senders', async () => {
    const as = (key: string) => ({ Authorization: key });
    const created = conforms(await api.http.post('/v1/domains').set(as(mgmt)).send({ name: 'example.test', external_id: 'x-1' }), 'post', '/v1/domains');
    const id = created.body.id as string;
    conforms(await api.http.post('/v1/domains').set(as(mgmt)).send({ name: 'example.test', external_id: 'x-1' }), 'post', '/v1/domains');
    conforms(await api.http.post('/v1/domains').set(as(mgmt)).send({ name: 'example.test' }), 'post', '/v1/domains');
    conforms(await api.http.post('/v1/domains').set(as(mgmt)).send({ name: 'other.test', external_id: 'x-1' }), 'post', '/v1/domains');
    conforms(await api.http.post('/v1/domains').set(as(mgmt)).send({ name: '' }), 'post', '/v1/domains');
    conforms(await api.http.post('/v1/domains').set(as(acme.auth)).send({ name: 'example.test' }), 'post', '/v1/domains');
    const readOnly = await createManagementKey(api.deps.db, acme.accountId, ['domains:read']);
    conforms(await api.http.post('/v1/domains').set(as(`Bearer ${readOnly.key}`)).send({ name: 'x.test' }), 'post', '/v1/domains');
    conforms(await api.http.get('/v1/domains').set(as(mgmt)), 'get', '/v1/domains');
    conforms(await api.http.get('/v1/domains?external_id=x-1&limit=x').set(as(mgmt)), 'get', '/v1/domains');
    conforms(await api.http.get(`/v1/domains/${id}`).set(as(mgmt)), 'get', '/v1/domains/{id}');
    conforms(await api.http.get('/v1/domains/dom_unknown').set(as(mgmt)), 'get', '/v1/domains/{id}');
    conforms(await api.http.get(`/v1/domains/${id}/dns`).set(as(mgmt)), 'get', '/v1/domains/{id}/dns');
    conforms(await api.http.get(`/v1/domains/${id}/compliance`).set(as(mgmt)), 'get', '/v1/domains/{id}/compliance');
    conforms(await api.http.post(`/v1/domains/${id}/check-dns`).set(as(mgmt)), 'post', '/v1/domains/{id}/check-dns');
    conforms(await api.http.post(`/v1/domains/${id}/check-dns`).set(as(mgmt)).send({ extra: true }), 'post', '/v1/domains/{id}/check-dns');
    conforms(await api.http.post(`/v1/domains/${id}/dkim/rotate`).set(as(mgmt)), 'post', '/v1/domains/{id}/dkim/rotate');
    conforms(await api.http.post(`/v1/domains/${id}/dkim/rotate`).set(as(mgmt)), 'post', '/v1/domains/{id}/dkim/rotate');
    conforms(await api.http.post('/v1/domains/dom_missing/dkim/rotate').set(as(mgmt)), 'post', '/v1/domains/{id}/dkim/rotate');

    const sender = conforms(await api.http.post(`/v1/domains/${id}/senders`).set(as(mgmt)).send({ email: 'hi@example.test' }), 'post', '/v1/domains/{id}/senders');
    conforms(await api.http.post(`/v1/domains/${id}/senders`).set(as(mgmt)).send({ email: 'HI@example.test' }), 'post', '/v1/domains/{id}/senders');
    conforms(await api.http.post('/v1/domains/dom_unknown/senders').set(as(mgmt)).send({ email: 'hi@example.test' }), 'post', '/v1/domains/{id}/senders');
    conforms(await api.http.get(`/v1/domains/${id}/senders`).set(as(mgmt)), 'get', '/v1/domains/{id}/senders');
    const path = `/v1/senders/${sender.body.id}`;
    conforms(await api.http.get(path).set(as(mgmt)), 'get', '/v1/senders/{id}');
    conforms(await api.http.patch(path).set(as(mgmt)).send({ display_name: 'Hi', transport_security_policy: 'require_tls' }), 'patch', '/v1/senders/{id}');
    conforms(await api.http.patch(path).set(as(mgmt)).send({ display_name: 7 }), 'patch', '/v1/senders/{id}');
    conforms(await api.http.delete(`/v1/domains/${id}`).set(as(mgmt)), 'delete', '/v1/domains/{id}');
    conforms(await api.http.delete(path).set(as(mgmt)), 'delete', '/v1/senders/{id}');
    conforms(await api.http.get(path).set(as(mgmt)), 'get', '/v1/senders/{id}');
    conforms(await api.http.delete(path).set(as(mgmt)), 'delete', '/v1/senders/{id}');
    conforms(await api.http.delete(`/v1/domains/${id}`).set(as(mgmt)), 'delete', '/v1/domains/{id}');
  });

  it('suppressions', async () => {
    const manage = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', mgmt);
    conforms(await manage(api.http.post('/v1/suppressions')).send({ email: 'gone@example.test' }), 'post', '/v1/suppressions');
    conforms(await manage(api.http.post('/v1/suppressions')).send({ email: 'gone@example.test' }), 'post', '/v1/suppressions');
    conforms(await manage(api.http.post('/v1/suppressions')).send({ email: 'nope' }), 'post', '/v1/suppressions');
    conforms(await manage(api.http.get('/v1/suppressions?email=gone%40example.test')), 'get', '/v1/suppressions');
    conforms(await manage(api.http.get('/v1/suppressions?email=nope')), 'get', '/v1/suppressions');
    conforms(await manage(api.http.get('/v1/suppressions/gone%40example.test')), 'get', '/v1/suppressions/{email}');
    conforms(await manage(api.http.delete('/v1/suppressions/gone%40example.test')), 'delete', '/v1/suppressions/{email}');
    conforms(await manage(api.http.get('/v1/suppressions/gone%40example.test')), 'get', '/v1/suppressions/{email}');
    conforms(await manage(api.http.delete('/v1/suppressions/gone%40example.test')), 'delete', '/v1/suppressions/{email}');
  });

  it('webhooks', async () => {
    const manage = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', mgmt);
    const created = await manage(api.http.post('/v1/webhooks')).send({ url: 'https://hooks.example.com/mailer', events: ['email.bounced'] });
    conforms(created, 'post', '/v1/webhooks');
    conforms(await manage(api.http.post('/v1/webhooks')).send({ url: 'http://hooks.example.com' }), 'post', '/v1/webhooks');
    conforms(await manage(api.http.get('/v1/webhooks')), 'get', '/v1/webhooks');
    conforms(await manage(api.http.get(`/v1/webhooks/${created.body.id}`)), 'get', '/v1/webhooks/{id}');
    conforms(await manage(api.http.patch(`/v1/webhooks/${created.body.id}`)).send({ status: 'disabled' }), 'patch', '/v1/webhooks/{id}');
    conforms(await manage(api.http.post(`/v1/webhooks/${created.body.id}/rotate-secret`)), 'post', '/v1/webhooks/{id}/rotate-secret');
    conforms(await manage(api.http.get(`/v1/webhooks/${created.body.id}/deliveries`)), 'get', '/v1/webhooks/{id}/deliveries');
    expect(conforms(await manage(api.http.get('/v1/webhooks?cursor=forged')), 'get', '/v1/webhooks').body.error.code).toBe('invalid_cursor');
    expect(conforms(await manage(api.http.get(`/v1/webhooks/${created.body.id}/deliveries?cursor=forged`)), 'get', '/v1/webhooks/{id}/deliveries').status).toBe(400);
    conforms(await manage(api.http.delete(`/v1/webhooks/${created.body.id}`)), 'delete', '/v1/webhooks/{id}');
    conforms(await manage(api.http.get(`/v1/webhooks/${created.body.id}`)), 'get', '/v1/webhooks/{id}');
  });

  it('templates', async () => {
    const manage = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', mgmt);
    const created = await manage(api.http.post('/v1/templates')).send({ name: 'Receipt', alias: 'receipt', subject: 'Hi {{name}}', html: '<p>{{name}}</p>' });
    conforms(created, 'post', '/v1/templates');
    conforms(await manage(api.http.post('/v1/templates')).send({ name: 'Broken', subject: 'x', html: '{{#a}}' }), 'post', '/v1/templates');
    conforms(await manage(api.http.post('/v1/templates')).send({ name: 'Again', alias: 'receipt', subject: 'x', html: 'x' }), 'post', '/v1/templates');
    conforms(await manage(api.http.get('/v1/templates')), 'get', '/v1/templates');
    conforms(await manage(api.http.get('/v1/templates/receipt')), 'get', '/v1/templates/{id}');
    conforms(await manage(api.http.patch(`/v1/templates/${created.body.id}`)).send({ text: '{{name}}' }), 'patch', '/v1/templates/{id}');
    conforms(await manage(api.http.get(`/v1/templates/${created.body.id}/versions`)), 'get', '/v1/templates/{id}/versions');
    conforms(await manage(api.http.post('/v1/templates/receipt/render')).send({ variables: { name: 'Ann' } }), 'post', '/v1/templates/{id}/render');
    conforms(await manage(api.http.post('/v1/templates/receipt/render')).send({ variables: {} }), 'post', '/v1/templates/{id}/render');
    const sent = await acme.send({ from: acme.sender.email, to: 'ann@example.test', template: { alias: 'receipt', variables: {} } });
    expect(conforms(sent, 'post', '/v1/emails').body.error.code).toBe('template_variable_missing');
    conforms(await manage(api.http.delete('/v1/templates/receipt')), 'delete', '/v1/templates/{id}');
    conforms(await manage(api.http.get('/v1/templates/receipt')), 'get', '/v1/templates/{id}');
  });

  it('inbound', async () => {
    const manage = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', mgmt);
    const domain = (await manage(api.http.post('/v1/domains')).send({ name: 'inbound.test' })).body;
    conforms(await manage(api.http.patch(`/v1/domains/${domain.id}`)).send({ receiving: true, receiving_subdomain: 'in.inbound.test' }), 'patch', '/v1/domains/{id}');
    conforms(await manage(api.http.patch(`/v1/domains/${domain.id}`)).send({ receiving_subdomain: 'in.other.test' }), 'patch', '/v1/domains/{id}');
    const route = conforms(await manage(api.http.post('/v1/inbound/routes')).send({ pattern: '*@in.inbound.test' }), 'post', '/v1/inbound/routes');
    conforms(await manage(api.http.post('/v1/inbound/routes')).send({ pattern: '*@in.inbound.test' }), 'post', '/v1/inbound/routes');
    conforms(await manage(api.http.post('/v1/inbound/routes')).send({ pattern: 'nope' }), 'post', '/v1/inbound/routes');
    conforms(await manage(api.http.get('/v1/inbound/routes')), 'get', '/v1/inbound/routes');
    conforms(await manage(api.http.get(`/v1/inbound/routes/${route.body.id}`)), 'get', '/v1/inbound/routes/{id}');
    conforms(await manage(api.http.patch(`/v1/inbound/routes/${route.body.id}`)).send({ enabled: false }), 'patch', '/v1/inbound/routes/{id}');

    const raw = Buffer.from('From: a@client.test\r\nTo: b@in.inbound.test\r\nSubject: In\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nHi\r\n--x\r\nContent-Type: text/csv; name=a.csv\r\n\r\na,b\r\n--x--\r\n');
    const message = await readInboundMessage(raw);
    const email = { id: newId('inboundEmail'), accountId: acme.accountId, routeId: route.body.id, mailFrom: 'a@client.test', recipients: ['b@in.inbound.test'], message, size: raw.length, createdAt: new Date() };
    const auth = { spf: { result: 'none', domain: null }, dkim: { result: 'none', signatures: [] }, dmarc: { result: 'none', domain: null, policy: null }, arc: { result: 'none' } };
    await insertInboundEmails(api.deps.db, [{ ...email, auth, remoteAddress: '127.0.0.1', raw, webhookId: null, event: {} }]);
    conforms(await manage(api.http.get('/v1/inbound/emails?to=b@in.inbound.test&received_after=2020-01-01T00:00:00Z')), 'get', '/v1/inbound/emails');
    conforms(await manage(api.http.get('/v1/inbound/emails?received_after=yesterday')), 'get', '/v1/inbound/emails');
    conforms(await manage(api.http.get(`/v1/inbound/emails/${email.id}`)), 'get', '/v1/inbound/emails/{id}');
    conforms(await manage(api.http.get('/v1/inbound/emails/inb_unknown')), 'get', '/v1/inbound/emails/{id}');
    conforms(await manage(api.http.get(`/v1/inbound/emails/${email.id}/raw`)), 'get', '/v1/inbound/emails/{id}/raw');
    conforms(await manage(api.http.get(`/v1/inbound/emails/${email.id}/attachments/${message.attachments[0]!.id}`)), 'get', '/v1/inbound/emails/{id}/attachments/{attachment_id}');
    conforms(await manage(api.http.get(`/v1/inbound/emails/${email.id}/attachments/iat_unknown`)), 'get', '/v1/inbound/emails/{id}/attachments/{attachment_id}');
    expect(conforms(await manage(api.http.get('/resend/emails/receiving?limit=1')), 'get', '/resend/emails/receiving').body.data).toHaveLength(1);
    conforms(await manage(api.http.get('/resend/emails/receiving?after=inb_unknown')), 'get', '/resend/emails/receiving');
    expect(conforms(await manage(api.http.get(`/resend/emails/receiving/${email.id}`)), 'get', '/resend/emails/receiving/{id}').body.object).toBe('email');
    conforms(await manage(api.http.get(`/resend/emails/receiving/${email.id}?html_format=data_uri`)), 'get', '/resend/emails/receiving/{id}');
    conforms(await manage(api.http.get('/resend/emails/receiving/inb_unknown')), 'get', '/resend/emails/receiving/{id}');
    conforms(await manage(api.http.delete(`/v1/inbound/routes/${route.body.id}`)), 'delete', '/v1/inbound/routes/{id}');
    conforms(await manage(api.http.get(`/v1/inbound/routes/${route.body.id}`)), 'get', '/v1/inbound/routes/{id}');
  });

  it('account', async () => {
    conforms(await acme.get('/v1/account'), 'get', '/v1/account');
    conforms(await api.http.get('/v1/account').set('Authorization', mgmt), 'get', '/v1/account');
    conforms(await api.http.get('/v1/account'), 'get', '/v1/account');
    const many = Array.from({ length: 3 }, (_, i) => `many${i}@example.test`);
    expect(conforms(await acme.send(acme.message({ to: many })), 'post', '/v1/emails').body.error.code).toBe('plan_limit_exceeded');
  });

  it('the Resend and Postmark adapters', async () => {
    const shop = await sendingAccount(api, { domain: 'conformance-adapters.test', limits: GENEROUS_LIMITS });
    const send = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', shop.auth);
    const admin = (req: ReturnType<TestApi['http']['get']>) => req.set('Authorization', `Bearer ${shop.management_key}`);
    const message = { from: shop.sender.email, to: 'Ann <ann@example.test>', subject: 'Hi', text: 'Hello' };
    const sent = conforms(await send(api.http.post('/resend/emails')).send(message), 'post', '/resend/emails');
    conforms(await send(api.http.post('/resend/emails')).send({ ...message, from: 'nobody' }), 'post', '/resend/emails');
    conforms(await api.http.post('/resend/emails').send(message), 'post', '/resend/emails');
    conforms(await send(api.http.post('/resend/emails/batch')).send([message, message]), 'post', '/resend/emails/batch');
    conforms(await send(api.http.get(`/resend/emails/${sent.body.id}`)), 'get', '/resend/emails/{id}');
    conforms(await send(api.http.get('/resend/emails/em_missing')), 'get', '/resend/emails/{id}');
    conforms(await send(api.http.get(`/resend/emails?limit=1&after=${sent.body.id}`)), 'get', '/resend/emails');
    conforms(await send(api.http.get('/resend/emails?limit=0')), 'get', '/resend/emails');
    const later = await send(api.http.post('/resend/emails')).send({ ...message, scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    const laterStill = { scheduled_at: new Date(Date.now() + 7_200_000).toISOString() };
    conforms(await send(api.http.patch(`/resend/emails/${later.body.id}`)).send(laterStill), 'patch', '/resend/emails/{id}');
    conforms(await send(api.http.patch(`/resend/emails/${later.body.id}`)).send({ scheduled_at: 'soon' }), 'patch', '/resend/emails/{id}');
    conforms(await send(api.http.post(`/resend/emails/${later.body.id}/cancel`)), 'post', '/resend/emails/{id}/cancel');
    conforms(await send(api.http.post(`/resend/emails/${later.body.id}/cancel`)), 'post', '/resend/emails/{id}/cancel');
    conforms(await send(api.http.patch(`/resend/emails/${later.body.id}`)).send(laterStill), 'patch', '/resend/emails/{id}');
    const domain = conforms(await admin(api.http.post('/resend/domains')).send({ name: 'conformance-resend.test' }), 'post', '/resend/domains');
    conforms(await send(api.http.post('/resend/domains')).send({ name: 'x.test' }), 'post', '/resend/domains');
    conforms(await admin(api.http.get('/resend/domains')), 'get', '/resend/domains');
    conforms(await admin(api.http.get(`/resend/domains/${domain.body.id}`)), 'get', '/resend/domains/{id}');
    conforms(await admin(api.http.post(`/resend/domains/${domain.body.id}/verify`)), 'post', '/resend/domains/{id}/verify');
    conforms(await admin(api.http.patch(`/resend/domains/${domain.body.id}`)).send({ open_tracking: true }), 'patch', '/resend/domains/{id}');
    conforms(await admin(api.http.delete(`/resend/domains/${domain.body.id}`)), 'delete', '/resend/domains/{id}');
    conforms(await admin(api.http.get(`/resend/domains/${domain.body.id}`)), 'get', '/resend/domains/{id}');

    const token = (req: ReturnType<TestApi['http']['get']>, key = shop.sending_key) => req.set('X-Postmark-Server-Token', key);
    const email = { From: shop.sender.email, To: 'Ann <ann@example.test>, bob@example.test', Subject: 'Hi', TextBody: 'Hello' };
    const posted = conforms(await token(api.http.post('/postmark/email')).send(email), 'post', '/postmark/email');
    conforms(await token(api.http.post('/postmark/email')).send({ ...email, TrackLinks: 'Everywhere' }), 'post', '/postmark/email');
    conforms(await api.http.post('/postmark/email').send(email), 'post', '/postmark/email');
    conforms(await token(api.http.post('/postmark/email/batch')).send([email, { ...email, To: 'nope' }]), 'post', '/postmark/email/batch');
    const tpl = await admin(api.http.post('/v1/templates')).send({ name: 'Hi', alias: 'conformance-hi', subject: 'Hi {{name}}', text: 'Hello {{name}}' });
    const templated = { From: shop.sender.email, To: 'ann@example.test', TemplateAlias: 'conformance-hi', TemplateModel: { name: 'Ann' } };
    expect(conforms(await token(api.http.post('/postmark/email/withTemplate')).send(templated), 'post', '/postmark/email/withTemplate').status).toBe(200);
    conforms(await token(api.http.post('/postmark/email/withTemplate')).send({ ...templated, TemplateModel: {} }), 'post', '/postmark/email/withTemplate');
    const byId = { ...templated, TemplateAlias: undefined, TemplateId: tpl.body.id };
    const batch = conforms(await token(api.http.post('/postmark/email/batchWithTemplates')).send({ Messages: [byId, { ...templated, InlineCss: true }] }), 'post', '/postmark/email/batchWithTemplates');
    expect(batch.body.map((r: { ErrorCode: number }) => r.ErrorCode)).toEqual([0, 300]);
    conforms(await token(api.http.post('/postmark/email/batchWithTemplates')).send([templated]), 'post', '/postmark/email/batchWithTemplates');
    const resendTemplated = { from: shop.sender.email, to: 'ann@example.test', template: { id: 'conformance-hi', variables: { name: 'Ann' } } };
    expect(conforms(await send(api.http.post('/resend/emails')).send(resendTemplated), 'post', '/resend/emails').status).toBe(200);
    conforms(await token(api.http.get('/postmark/messages/outbound?count=2&offset=0')), 'get', '/postmark/messages/outbound');
    conforms(await token(api.http.get('/postmark/messages/outbound')), 'get', '/postmark/messages/outbound');
    conforms(await token(api.http.get(`/postmark/messages/outbound/${posted.body.MessageID}/details`)), 'get', '/postmark/messages/outbound/{id}/details');
    conforms(await token(api.http.get('/postmark/messages/outbound/em_missing/details')), 'get', '/postmark/messages/outbound/{id}/details');
    const key = shop.management_key;
    const change = { Suppressions: [{ EmailAddress: 'gone@example.test' }] };
    conforms(await token(api.http.post('/postmark/message-streams/outbound/suppressions'), key).send(change), 'post', '/postmark/message-streams/{stream}/suppressions');
    conforms(await token(api.http.get('/postmark/message-streams/outbound/suppressions/dump'), key), 'get', '/postmark/message-streams/{stream}/suppressions/dump');
    conforms(await token(api.http.get('/postmark/message-streams/outbound/suppressions/dump')), 'get', '/postmark/message-streams/{stream}/suppressions/dump');
    conforms(await token(api.http.get('/postmark/bounces?count=10'), key), 'get', '/postmark/bounces');
    conforms(await token(api.http.post('/postmark/message-streams/outbound/suppressions/delete'), key).send(change), 'post', '/postmark/message-streams/{stream}/suppressions/delete');
  });

  it('drove every operation to a success', () => {
    for (const route of apiRoutes) {
      const statuses = [...(covered.get(route.operationId) ?? [])];
      // A redirect is the success of a tracked link (GET /c/{token}).
      expect({ operation: route.operationId, success: statuses.some((s) => s < 400) }).toEqual({ operation: route.operationId, success: true });
    }
  });
});
