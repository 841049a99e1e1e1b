import { randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { insertReadyDomain, insertSender, startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { dkimpyVerdict } from './testing/verify-dkim';

/** A message sent by template over the API (docs/api-decisions.md, "Templates"), delivered as rendered and signed. */
let h: WorkerHarness;
let api: TestApi;
let peer: TestSmtpServer;
let dkimRecord: { name: string; value: string };
let provisioned: Awaited<ReturnType<TestApi['createAccount']>>;

beforeAll(async () => {
  h = await startWorkerHarness();
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX! });
  provisioned = await api.createAccount();
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, provisioned.account.id, 'tpl-shop.test');
  dkimRecord = { name: `${domain.dkim.selector}._domainkey.tpl-shop.test`, value: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` };
  h.dns.set(dkimRecord.name, [{ type: 'TXT', data: dkimRecord.value }]);
  await insertSender(api.deps.db, provisioned.account.id, domain.id, 'hello@tpl-shop.test', { displayName: 'Shop' });
  h.dns.set('tpl-rcpt.test', [{ type: 'MX', exchange: 'mx.tpl-rcpt.test', priority: 10 }]);
  h.dns.set('mx.tpl-rcpt.test', [{ type: 'A', address: '127.0.0.47' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.47', port: h.smtpPort });
  h.startDaemon();
});
afterAll(async () => {
  await peer.close();
  await api.close();
  await h.close();
});

it('delivers what was rendered at intake, with the generated plain part, and dkimpy verifies it', async () => {
  const template = await api.http
    .post('/v1/templates')
    .set('Authorization', `Bearer ${provisioned.management_key}`)
    .send({ name: 'Shipped', alias: 'shipped', subject: 'Order {{order}} has shipped', html: '<p>Hi {{name}},</p><ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>' });
  expect(template.status).toBe(201);
  const sent = await api.http
    .post('/v1/emails')
    .set('Authorization', `Bearer ${provisioned.sending_key}`)
    .set('Idempotency-Key', randomUUID())
    .send({ from: 'hello@tpl-shop.test', to: 'ann@tpl-rcpt.test', template: { alias: 'shipped', variables: { order: 'A-17', name: 'Ann <3', items: ['Tea', 'Cups'] } } });
  expect(sent.status).toBe(202);
  // A new version after acceptance changes nothing of what is delivered.
  await api.http.patch('/v1/templates/shipped').set('Authorization', `Bearer ${provisioned.management_key}`).send({ subject: 'Changed' });
  await h.waitForStatus(sent.body.id, ['accepted']);

  const [received] = await peer.waitForMessages(1);
  const parsed = await simpleParser(received!.raw);
  expect(parsed.subject).toBe('Order A-17 has shipped');
  expect(parsed.html).toBe('<p>Hi Ann &lt;3,</p><ul><li>Tea</li><li>Cups</li></ul>');
  expect(parsed.text).toBe('Hi Ann <3,\n\n * Tea\n * Cups');
  expect(await dkimpyVerdict(received!.raw, dkimRecord.name, dkimRecord.value)).toBe('pass');
});
