import { randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { trackedLinks } from '@mailer/message';
import { purgeExpired } from '@mailer/operations';
import { insertReadyDomain, insertSender, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';

/**
 * Opens and clicks end to end (docs/api-decisions.md, "Opens and clicks"): a domain that tracks
 * both, POST /v1/emails on the API, delivery by the daemon to a real SMTP peer, the tracked HTML
 * part checked there under DKIM, then the pixel and a link used on the API.
 */
let h: WorkerHarness;
let api: TestApi;
let peer: TestSmtpServer;
let receiver: WebhookReceiver;
let auth: string;

const HTML =
  '<html><body><p>New in store: <a href="https://shop.test/sale?from=mail&amp;x=1">the sale</a>, ' +
  '<a href="mailto:help@shop.test">help</a>, <a href="https://shop.test/about">about us</a>.</p></body></html>';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const provisioned = await api.createAccount();
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, provisioned.account.id, 'shop.test');
  h.dns.set(`${domain.dkim.selector}._domainkey.shop.test`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
  await insertSender(api.deps.db, provisioned.account.id, domain.id, 'news@shop.test');
  auth = `Bearer ${provisioned.sending_key}`;
  const management = `Bearer ${provisioned.management_key}`;
  expect((await api.http.patch(`/v1/domains/${domain.id}`).set('Authorization', management).send({ tracking: { opens: true, clicks: true } })).status).toBe(200);
  receiver = await startWebhookReceiver();
  await api.http.post('/v1/webhooks').set('Authorization', management).send({ url: receiver.url, events: ['email.opened', 'email.clicked'] });
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

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const detail = async (emailId: string) => (await api.http.get(`/v1/emails/${emailId}`).set('Authorization', auth)).body;

/** Each recipient's copy of the message, once it is accepted: its raw bytes and its parts. */
async function copies(emailId: string) {
  await until(async () => ((await detail(emailId)).status === 'accepted' ? true : undefined));
  const received = peer.messages.filter((m) => m.raw.toString('latin1').includes(`<${emailId}@shop.test>`));
  return new Map(
    await Promise.all(
      received.map(async (m) => {
        const parsed = await simpleParser(m.raw);
        return [m.to[0]!, { raw: m.raw, html: parsed.html as string, text: parsed.text ?? '', transactionRecipients: m.to.length }] as const;
      }),
    ),
  );
}

describe('a message of a domain that tracks opens and clicks', () => {
  let emailId: string;
  let byRecipient: Awaited<ReturnType<typeof copies>>;

  beforeAll(async () => {
    const accepted = await api.http
      .post('/v1/emails')
      .set('Authorization', auth)
      .set('Idempotency-Key', randomUUID())
      .send({ from: 'news@shop.test', to: ['ann@readers.test'], bcc: ['carol@readers.test'], subject: 'New in store', content: { html: HTML } });
    expect(accepted.status).toBe(202);
    emailId = accepted.body.id;
    byRecipient = await copies(emailId);
  });

  it("reaches a to recipient with the pixel and its links rewritten, signed by DKIM; the plain part and mailto: untouched", async () => {
    expect([...byRecipient.keys()].sort()).toEqual(['ann@readers.test', 'carol@readers.test']);
    const ann = byRecipient.get('ann@readers.test')!;
    expect(ann.transactionRecipients).toBe(1);
    const links = trackedLinks(ann.html).map((url) => new URL(url));
    expect(links.map((url) => `${url.origin}${url.pathname.slice(0, 3)}`)).toEqual(['https://track.shop.test/c/', 'https://track.shop.test/c/']);
    expect(links[0]!.pathname).not.toBe(links[1]!.pathname);
    expect(ann.html).toContain('<a href="mailto:help@shop.test">help</a>');
    expect(ann.html).toMatch(/<img src="https:\/\/track\.shop\.test\/o\/[A-Za-z0-9_-]{54}" width="1" height="1" alt="">$/);
    expect(ann.text).toContain('https://shop.test/sale?from=mail&x=1');
    expect(ann.text).not.toContain('track.shop.test');
    const [signature] = await verifyDkim(ann.raw, h.dns.address);
    expect(signature).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
  });

  it('reaches a BCC recipient untracked', () => {
    const carol = byRecipient.get('carol@readers.test')!;
    expect(carol.html).toBe(HTML);
    expect(carol.html).not.toContain('track.shop.test');
  });

  it('follows a rewritten link to its original URL only, recording clicked with its webhook', async () => {
    const [sale, about] = trackedLinks(byRecipient.get('ann@readers.test')!.html).map((url) => new URL(url).pathname);
    const followed = await api.http.get(sale!).set('User-Agent', 'Thunderbird/128.0').set('Host', 'track.shop.test');
    expect(followed.status).toBe(302);
    expect(followed.headers.location).toBe('https://shop.test/sale?from=mail&x=1');
    expect((await api.http.get(about!)).headers.location).toBe('https://shop.test/about');
    const events = await until(async () => {
      const clicked = ((await detail(emailId)).events as { type: string }[]).filter((e) => e.type === 'clicked');
      return clicked.length === 2 ? clicked : undefined;
    });
    expect(events[0]).toMatchObject({ recipient: 'ann@readers.test', url: 'https://shop.test/sale?from=mail&x=1', user_agent: 'Thunderbird/128.0', proxy: null });
    const hook = await until(() => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'email.clicked' && b.data.url === 'https://shop.test/about'));
    expect(hook.data).toMatchObject({ email_id: emailId, recipient: 'ann@readers.test', status: 'accepted' });
    const [stamp] = await api.deps.db`select clicked_at from deliveries where email_id = ${emailId} and recipient = 'ann@readers.test'`;
    expect(stamp!.clicked_at).toBeInstanceOf(Date);
  });

  it('answers the pixel and records opened with the image proxy; a forged token records nothing', async () => {
    const pixel = /\/o\/([A-Za-z0-9_-]{54})"/.exec(byRecipient.get('ann@readers.test')!.html)![1]!;
    const image = await api.http.get(`/o/${pixel}`).set('User-Agent', GMAIL_PROXY);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/gif');
    expect(image.headers['cache-control']).toMatch(/no-store/);
    const forged = `${pixel.slice(0, 30)}${pixel[30] === 'A' ? 'B' : 'A'}${pixel.slice(31)}`;
    expect((await api.http.get(`/o/${forged}`)).status).toBe(200);
    const opened = await until(async () => {
      const events = ((await detail(emailId)).events as { type: string }[]).filter((e) => e.type === 'opened');
      return events.length > 0 ? events : undefined;
    });
    expect(opened).toEqual([expect.objectContaining({ recipient: 'ann@readers.test', user_agent: GMAIL_PROXY, proxy: 'gmail' })]);
    const hook = await until(() => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'email.opened'));
    expect(hook.data).toMatchObject({ email_id: emailId, user_agent: GMAIL_PROXY, proxy: 'gmail' });
  });

  it('refuses a forged or re-purposed click token: never a redirect', async () => {
    const [sale] = trackedLinks(byRecipient.get('ann@readers.test')!.html).map((url) => new URL(url).pathname.slice('/c/'.length));
    const altered = `${sale!.slice(0, 40)}${sale![40] === 'A' ? 'B' : 'A'}${sale!.slice(41)}`;
    for (const token of [altered, 'forged', /\/o\/([A-Za-z0-9_-]{54})"/.exec(byRecipient.get('ann@readers.test')!.html)![1]!]) {
      const answer = await api.http.get(`/c/${token}?url=https://evil.test/`);
      expect(answer.status).toBe(404);
      expect(answer.headers.location).toBeUndefined();
    }
  });

  // Last: retention deletes the message.
  it('still follows a link once retention deleted the message, recording nothing, until its tokens expire', async () => {
    const [sale] = trackedLinks(byRecipient.get('ann@readers.test')!.html).map((url) => new URL(url).pathname);
    const clicks = async () => (await api.deps.db`select count(*)::int as n from events where email_id = ${emailId} and type = 'clicked'`)[0]!.n as number;
    const before = await clicks();
    const retention = { retentionDays: 30, usageWindowMs: 0, batchSize: 100 };
    const purged = await purgeExpired(api.deps.db, { ...retention, now: new Date(Date.now() + 31 * 86_400_000) });
    expect(purged.emails).toBeGreaterThanOrEqual(1);
    expect((await api.http.get(`/v1/emails/${emailId}`).set('Authorization', auth)).status).toBe(404);

    const followed = await api.http.get(sale!);
    expect(followed.status).toBe(302);
    expect(followed.headers.location).toBe('https://shop.test/sale?from=mail&x=1');
    expect(before).toBeGreaterThan(0);
    expect(await clicks()).toBe(0);

    await purgeExpired(api.deps.db, { ...retention, now: new Date(Date.now() + 62 * 86_400_000) });
    expect((await api.http.get(sale!)).status).toBe(404);
  });
});
