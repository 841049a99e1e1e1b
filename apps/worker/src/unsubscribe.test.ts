import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { insertReadyDomain, insertSender, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';
import { verifyWithDkimpy } from './testing/verify-dkim-dkimpy';

/**
 * One-click unsubscribe end to end (docs/api-decisions.md, "Unsubscribe"): POST /v1/emails on
 * the API, delivery by the daemon to a real SMTP peer, the List-Unsubscribe headers checked
 * there under DKIM (mailauth and dkimpy), then the link used on the API.
 */
let h: WorkerHarness;
let api: TestApi;
let peer: TestSmtpServer;
let receiver: WebhookReceiver;
let auth: string;
let management: string;
let secret: string;
let dkimRecord: { name: string; value: string };
const PUBLIC_URL = 'https://mail.shop.test';

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL });
  const provisioned = await api.createAccount();
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, provisioned.account.id, 'shop.test');
  dkimRecord = { name: `${domain.dkim.selector}._domainkey.shop.test`, value: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` };
  h.dns.set(dkimRecord.name, [{ type: 'TXT', data: dkimRecord.value }]);
  await insertSender(api.deps.db, provisioned.account.id, domain.id, 'news@shop.test');
  auth = `Bearer ${provisioned.sending_key}`;
  management = `Bearer ${provisioned.management_key}`;
  receiver = await startWebhookReceiver();
  const hook = await api.http.post('/v1/webhooks').set('Authorization', `Bearer ${provisioned.management_key}`).send({ url: receiver.url, events: ['email.unsubscribed'] });
  secret = hook.body.secret;
  h.dns.set('readers.test', [{ type: 'MX', exchange: 'mx.readers.test', priority: 10 }]);
  h.dns.set('mx.readers.test', [{ type: 'A', address: '127.0.0.5' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.5', port: h.smtpPort });
  h.startDaemon();
});
afterAll(async () => {
  await peer.close();
  await receiver.close();
  await api.close();
  await h.close();
});

const send = (body: Record<string, unknown>) =>
  api.http
    .post('/v1/emails')
    .set('Authorization', auth)
    .set('Idempotency-Key', randomUUID())
    .send({ from: 'news@shop.test', to: ['ann@readers.test', 'bob@readers.test'], subject: 'What is new', content: { plain: 'Hello' }, ...body });

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A header field of a received message, unfolded. */
const field = (raw: Buffer, name: string) => {
  const head = raw.toString('latin1').split('\r\n\r\n')[0]!.replace(/\r\n[ \t]/g, ' ');
  return head.split('\r\n').find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
};

/** Delivered: the transactions the peer received of the message, as the recipients they went to and the message. */
async function delivered(emailId: string): Promise<{ to: string[]; raw: Buffer }[]> {
  await until(async () => ((await api.http.get(`/v1/emails/${emailId}`).set('Authorization', auth)).body.status === 'accepted' ? true : undefined));
  return peer.messages.filter((m) => field(m.raw, 'Message-ID') === `<${emailId}@shop.test>`).map((m) => ({ to: [...m.to].sort(), raw: m.raw }));
}

/** Delivered in one transaction per recipient: each recipient's own message. */
async function deliveredAlone(emailId: string): Promise<Map<string, Buffer>> {
  const transactions = await delivered(emailId);
  expect(transactions.map((t) => t.to).sort()).toEqual([['ann@readers.test'], ['bob@readers.test']]);
  return new Map(transactions.map((t) => [t.to[0]!, t.raw]));
}

const links = (raw: Buffer) => {
  const match = /^<(https:\/\/[^>]+)>, <mailto:([^>]+)>$/.exec(field(raw, 'List-Unsubscribe') ?? '');
  return { url: new URL(match![1]!), mailto: match![2]! };
};

describe('a broadcast message', () => {
  let emailId: string;
  let copies: Map<string, Buffer>;

  beforeAll(async () => {
    const accepted = await send({ type: 'broadcast' });
    expect(accepted.status).toBe(202);
    emailId = accepted.body.id;
    copies = await deliveredAlone(emailId);
  });

  it('reaches each recipient with List-Unsubscribe links of its own, covered by DKIM signatures that verify', async () => {
    const [ann, bob] = [copies.get('ann@readers.test')!, copies.get('bob@readers.test')!];
    for (const raw of [ann, bob]) {
      const { url, mailto } = links(raw);
      expect(url.origin).toBe(PUBLIC_URL);
      expect(mailto).toBe(`u-${url.pathname.slice('/u/'.length)}@bounces.shop.test`);
      expect(field(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      const [signature] = await verifyDkim(raw, h.dns.address);
      expect(signature).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
      const signed = /\bh=([^;]+)/.exec(field(raw, 'DKIM-Signature')!)![1]!.split(':').map((n) => n.trim().toLowerCase());
      expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']));
    }
    expect(await verifyWithDkimpy([ann, bob], { [dkimRecord.name]: dkimRecord.value })).toEqual([[{ algorithm: 'rsa-sha256', pass: true }], [{ algorithm: 'rsa-sha256', pass: true }]]);
    expect(links(ann).url.pathname).not.toBe(links(bob).url.pathname);
  });

  it('shows a page on GET that changes nothing, and unsubscribes on the one-click POST, once', async () => {
    const path = links(copies.get('ann@readers.test')!).url.pathname;
    const page = await api.http.get(path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<form method="post">[\s\S]*name="List-Unsubscribe" value="One-Click"/);
    const suppression = () => api.deps.db`select email, reason, stream, email_id from suppressions where email = 'ann@readers.test'`;
    expect(await suppression()).toEqual([]);

    const post = () => api.http.post(path).type('form').send('List-Unsubscribe=One-Click');
    const first = await post();
    expect(first.status).toBe(200);
    expect(first.text).toContain('Unsubscribed');
    expect(await suppression()).toEqual([{ email: 'ann@readers.test', reason: 'unsubscribed', stream: 'broadcast', email_id: emailId }]);

    const hooked = await until(() => receiver.received[0]);
    expect(new Webhook(secret).verify(hooked.body, hooked.headers as Record<string, string>)).toMatchObject({
      type: 'email.unsubscribed',
      data: { email_id: emailId, recipient: 'ann@readers.test', status: 'accepted' },
    });

    expect((await post()).status).toBe(200);
    const detail = await api.http.get(`/v1/emails/${emailId}`).set('Authorization', auth);
    expect(detail.body.events.filter((e: { type: string }) => e.type === 'unsubscribed')).toEqual([{ type: 'unsubscribed', at: expect.any(String), recipient: 'ann@readers.test' }]);
    // Only ann's: bob's delivery is untouched, and an unsubscribe from broadcast mail leaves transactional mail flowing.
    expect(receiver.received).toHaveLength(1);
    const suppressed = (stream: string) => api.http.get(`/v1/suppressions/ann@readers.test?stream=${stream}`).set('Authorization', management);
    expect((await suppressed('broadcast')).body).toMatchObject({ reason: 'unsubscribed', stream: 'broadcast', email_id: emailId });
    expect((await suppressed('transactional')).status).toBe(404);
  });

  it('refuses a forged or altered token with not_found, on GET and POST', async () => {
    const path = links(copies.get('bob@readers.test')!).url.pathname;
    const altered = `${path.slice(0, -5)}${path.at(-5) === 'A' ? 'B' : 'A'}${path.slice(-4)}`;
    for (const forged of [altered, '/u/not-a-token']) {
      for (const res of [await api.http.get(forged), await api.http.post(forged).type('form').send('List-Unsubscribe=One-Click')]) {
        expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
      }
    }
    const [bob] = await api.deps.db`select unsubscribed_at from deliveries where email_id = ${emailId} and recipient = 'bob@readers.test'`;
    expect(bob!.unsubscribed_at).toBeNull();
  });
});

describe('a transactional message', () => {
  it('carries the headers only when sent with unsubscribe: true', async () => {
    const plain = await send({});
    const asked = await send({ unsubscribe: true });
    const without = await delivered(plain.body.id);
    expect(without.map((t) => t.to)).toEqual([['ann@readers.test', 'bob@readers.test']]);
    expect(field(without[0]!.raw, 'List-Unsubscribe')).toBeUndefined();
    const raw = (await deliveredAlone(asked.body.id)).get('ann@readers.test')!;
    expect(links(raw).url.origin).toBe(PUBLIC_URL);
    expect((await verifyDkim(raw, h.dns.address))[0]).toMatchObject({ status: { result: 'pass' } });
  });

  it("keeps the customer's own List-Unsubscribe and adds none", async () => {
    const own = await send({ unsubscribe: true, headers: { 'List-Unsubscribe': '<https://shop.test/leave>' } });
    expect(own.status).toBe(202);
    const raw = (await deliveredAlone(own.body.id)).get('ann@readers.test')!;
    expect(field(raw, 'List-Unsubscribe')).toBe('<https://shop.test/leave>');
    expect(field(raw, 'List-Unsubscribe-Post')).toBeUndefined();
  });
});
