import { insertInboundEmails, setAccountPlan } from '@mailer/db';
import { listenRaw, startTestApi, type TestApi } from '@mailer/api/testing';
import { insertReadyDomain, insertSender, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { MailerClient } from './client';
import { MailerApiError } from './errors';
import { OPERATIONS } from './operations';

let api: TestApi;
let dns: TestDnsServer;
let server: Awaited<ReturnType<typeof listenRaw>>;
let sending: MailerClient;
let management: MailerClient;
let accountId: string;
let sendingKey: string;
const called = new Set<string>();

/** The real fetch, noting which operations were called. */
const seen: { method: string; url: string; headers: Record<string, string> }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  seen.push({ method: init!.method!, url: String(input), headers: init!.headers as Record<string, string> });
  return fetch(input, init);
};

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms' });
  server = await listenRaw(api);
  const account = await api.createAccount();
  accountId = account.account.id;
  sendingKey = account.sending_key;
  sending = new MailerClient({ baseUrl: server.url, apiKey: account.sending_key, fetch: recordingFetch });
  management = new MailerClient({ baseUrl: `${server.url}/`, apiKey: account.management_key, fetch: recordingFetch });
});
afterAll(async () => {
  await server.close();
  await api.close();
  await dns.close();
});
afterEach(() => {
  for (const { method, url } of seen) {
    const path = new URL(url).pathname;
    const match = Object.entries(OPERATIONS).find(
      ([, op]) => op.method === method && new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
    );
    if (match) called.add(match[0]);
  }
  seen.length = 0;
});

describe('MailerClient against the API', () => {
  it('manages domains, senders, suppressions and webhooks', async () => {
    const domain = await management.domains.create({ name: 'sdk.test', external_id: 'sdk-1' });
    expect(domain).toMatchObject({ name: 'sdk.test', status: 'not_ready' });
    expect((await management.domains.list({ limit: 10 })).data.map((d) => d.id)).toEqual([domain.id]);
    expect(await management.domains.get(domain.id)).toEqual(domain);
    expect((await management.domains.dnsRecords(domain.id)).records.map((r) => r.purpose)).toEqual([
      'ownership', 'dkim', 'dkim_ed25519', 'dmarc', 'return_path_mx', 'return_path_spf',
    ]);
    expect((await management.domains.checkDns(domain.id)).ownership.status).toBe('missing');
    expect((await management.domains.compliance(domain.id)).providers.map((p) => p.provider)).toEqual(['gmail', 'yahoo', 'microsoft']);
    const rotation = await management.domains.rotateDkim(domain.id);
    expect(rotation.records.filter((r) => r.state === 'pending').map((r) => r.purpose)).toEqual(['dkim', 'dkim_ed25519']);
    const sender = await management.senders.create(domain.id, { email: 'hi@sdk.test' });
    expect(sender.effective_state).toBe('domain_not_ready');
    expect((await management.senders.list(domain.id)).data).toEqual([sender]);
    expect((await management.senders.update(sender.id, { display_name: 'Hi' })).display_name).toBe('Hi');
    expect((await management.senders.get(sender.id)).display_name).toBe('Hi');
    expect(await management.senders.delete(sender.id)).toBeUndefined();
    expect(await management.domains.delete(domain.id)).toBeUndefined();

    const entry = await management.suppressions.create('Gone@Example.test');
    expect(entry).toMatchObject({ email: 'Gone@example.test', reason: 'manual' });
    expect(await management.suppressions.get('gone@example.test')).toEqual(entry);
    expect((await management.suppressions.list({ email: 'gone@example.test' })).data).toEqual([entry]);
    await management.suppressions.delete('gone@example.test');
    await expect(management.suppressions.get('gone@example.test')).rejects.toMatchObject({ status: 404, code: 'suppression_not_found' });

    const hook = await management.webhooks.create({ url: 'https://hooks.example.com/sdk', events: ['email.failed'] });
    expect(hook).toMatchObject({ status: 'enabled', events: ['email.failed'], secret: expect.stringMatching(/^whsec_/) });
    expect((await management.webhooks.list()).data.map((w) => w.id)).toEqual([hook.id]);
    expect((await management.webhooks.update(hook.id, { description: 'SDK' })).description).toBe('SDK');
    expect((await management.webhooks.get(hook.id)).description).toBe('SDK');
    expect((await management.webhooks.rotateSecret(hook.id)).secret).not.toBe(hook.secret);
    expect(await management.webhooks.deliveries(hook.id)).toEqual({ data: [], next_cursor: null });
    expect(await management.webhooks.delete(hook.id)).toBeUndefined();
    expect((await management.account.get()).id).toBe(accountId);
    await expect(management.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404, code: 'webhook_not_found' });
  });

  it('manages templates and previews one', async () => {
    const template = await management.templates.create({ name: 'Welcome', alias: 'sdk-welcome', subject: 'Hi {{name}}', text: 'Hello {{name}}' });
    expect(template).toMatchObject({ version: 1, variables: ['name'] });
    expect((await management.templates.list()).data.map((t) => t.id)).toEqual([template.id]);
    expect((await management.templates.update('sdk-welcome', { subject: 'Hello {{name}}' })).version).toBe(2);
    expect((await management.templates.get(template.id)).subject).toBe('Hello {{name}}');
    expect((await management.templates.versions(template.id)).data.map((v) => v.version)).toEqual([2, 1]);
    expect(await management.templates.render('sdk-welcome', { variables: { name: 'Ann' } })).toEqual({ subject: 'Hello Ann', html: null, text: 'Hello Ann' });
    expect(await management.templates.delete(template.id)).toBeUndefined();
    await expect(management.templates.get(template.id)).rejects.toMatchObject({ status: 404, code: 'template_not_found' });
  });

  it('manages receiving and inbound routes, and reads received mail', async () => {
    const domain = await management.domains.create({ name: 'inbound-sdk.test' });
    expect((await management.domains.update(domain.id, { receiving: true })).receiving).toMatchObject({ enabled: true, host: 'inbound-sdk.test' });
    const route = await management.inbound.routes.create({ pattern: '*@inbound-sdk.test' });
    expect((await management.inbound.routes.list()).data.map((r) => r.id)).toEqual([route.id]);
    expect((await management.inbound.routes.update(route.id, { enabled: false })).enabled).toBe(false);
    expect((await management.inbound.routes.get(route.id)).enabled).toBe(false);
    const raw = Buffer.from('From: a@client.test\r\nSubject: In\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nHi\r\n--x\r\nContent-Type: text/csv; name=a.csv\r\n\r\na,b\r\n--x--\r\n');
    const attachment = { id: 'iat_SdkTestAttachment00001', filename: 'a.csv', content_type: 'text/csv', size: 3, content_id: null, part: 0 };
    const message = { from: 'a@client.test', to: [], cc: [], reply_to: [], subject: 'In', text: 'Hi', html: null, headers: [], attachments: [attachment] };
    const auth = { spf: { result: 'none', domain: null }, dkim: { result: 'none', signatures: [] }, dmarc: { result: 'none', domain: null, policy: null }, arc: { result: 'none' } };
    const id = 'inb_SdkTestMessage00000001';
    await insertInboundEmails(api.deps.db, [{ id, accountId, routeId: route.id, mailFrom: 'a@client.test', recipients: ['x@inbound-sdk.test'], message, auth, createdAt: new Date(), remoteAddress: '127.0.0.1', raw, webhookId: null, event: {} }]);
    expect((await management.inbound.emails.list({ to: 'x@inbound-sdk.test' })).data.map((e) => e.id)).toEqual([id]);
    expect((await management.inbound.emails.get(id)).subject).toBe('In');
    expect(await management.inbound.emails.raw(id)).toBe(raw.toString());
    expect(await management.inbound.emails.attachment(id, attachment.id)).toBe('a,b');
    expect(await management.inbound.routes.delete(route.id)).toBeUndefined();
  });

  it('sends with a generated Idempotency-Key, or the one given, and reads emails back', async () => {
    const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, accountId, 'ready.test');
    await insertSender(api.deps.db, accountId, domain.id, 'hello@ready.test');
    const message = { from: 'hello@ready.test', to: ['ann@example.test'], subject: 'Hi', content: { plain: 'Hello.' } };
    const first = await sending.emails.send(message);
    const second = await sending.emails.send(message);
    expect(second.id).not.toBe(first.id);
    const [a, b] = seen.map((request) => request.headers['Idempotency-Key']);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).not.toBe(a);
    const replayed = await sending.emails.send(message, { idempotencyKey: 'order-1' });
    expect(await sending.emails.send(message, { idempotencyKey: 'order-1' })).toEqual(replayed);
    expect((await sending.emails.list({ limit: 2 })).data).toHaveLength(2);
    expect((await sending.emails.get(first.id)).to).toEqual(['ann@example.test']);
    await expect(sending.emails.get('em_missing')).rejects.toMatchObject({ status: 404, code: 'email_not_found' });

    const batch = await sending.emails.sendBatch([
      { ...message, to: 'bob@example.test', tags: { kind: 'receipt' }, scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
      message,
    ]);
    expect(batch.data).toHaveLength(2);
    expect(seen.at(-1)!.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await sending.emails.list({ tag: 'kind:receipt' })).data.map((e) => e.id)).toEqual([batch.data[0]!.id]);
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 7200_000).toISOString();
    expect(await sending.emails.reschedule(batch.data[0]!.id, { scheduled_at: later })).toMatchObject({ status: 'queued', scheduled_at: later });
    const canceled = await sending.emails.cancel(batch.data[0]!.id);
    expect(canceled).toMatchObject({ status: 'failed', cause: { code: 'canceled' }, tags: { kind: 'receipt' } });
    await expect(sending.emails.cancel(batch.data[0]!.id)).rejects.toMatchObject({ status: 409, code: 'email_not_cancelable' });
    await expect(sending.emails.reschedule(batch.data[0]!.id, { scheduled_at: later })).rejects.toMatchObject({ status: 409, code: 'email_not_reschedulable' });
  });

  it('throws MailerApiError with the error body the API sent', async () => {
    const error = (await management.domains.create({ name: 'not a domain' }).catch((e: unknown) => e)) as MailerApiError;
    expect(error).toBeInstanceOf(MailerApiError);
    expect(error.status).toBe(422);
    expect(error.body.error.code).toBe('validation_error');
    expect(error.details?.[0]?.path).toBe('name');
    expect(error.requestId).toEqual(expect.any(String));
    await expect(sending.domains.list()).rejects.toMatchObject({ status: 403, code: 'wrong_key_type' });
  });

  it('reaches the operations endpoints', async () => {
    expect(await sending.call('getHealth')).toEqual({ status: 'ok' });
    expect(await sending.call('getReadiness')).toMatchObject({ status: 'ready' });
    expect((await sending.call('getOpenApiDocument')).openapi).toBe('3.1.0');
    expect(await sending.call('getDocs')).toContain('<redoc');
    expect(await sending.call('getDocsScript')).toContain('Redoc');
    await expect(sending.call('getMetrics')).rejects.toMatchObject({ status: 503, code: 'operator_token_not_configured' });
  });

  it('walks every page of a list', async () => {
    const addresses = Array.from({ length: 5 }, (_, i) => `page${i}@example.test`);
    for (const email of addresses) await management.suppressions.create(email);
    seen.length = 0;
    const walked: string[] = [];
    for await (const entry of management.paginate('listSuppressions', { query: { limit: 2 } })) walked.push(entry.email);
    expect(walked.sort()).toEqual(addresses);
    // Three pages: the second and third asked for with the cursor the page before answered.
    expect(seen.map((r) => new URL(r.url).searchParams.get('cursor') !== null)).toEqual([false, true, true]);
    expect((await management.suppressions.list({ limit: 2 })).data).toHaveLength(2);
    const all = [];
    for await (const entry of management.suppressions.listAll({ limit: 4 })) all.push(entry);
    expect(all).toHaveLength(5);
  });

  it('called every operation of the document', () => {
    expect(Object.keys(OPERATIONS).filter((id) => !called.has(id))).toEqual([]);
  });
});
