import { Webhook } from 'standardwebhooks';
import { findActiveDomainById } from '@mailer/db';
import { requiredDnsRecords } from '@mailer/domain';
import { startInboundHarness, type InboundHarness } from '@mailer/inbound/testing';
import { checkDomainDns } from '@mailer/operations';
import { startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/**
 * End to end (docs/api-decisions.md, "Return path"): the daemon delivers to a real SMTP peer
 * with the domain's return-path address in MAIL FROM once the return path is verified; the
 * peer, having accepted, later sends a DSN (or a complaint) to the address it saw, through
 * the inbound listener, and the delivery turns bounced (or complained) in the database and the
 * account's webhook endpoint hears of it from the running daemon.
 */
let h: WorkerHarness;
let inbound: InboundHarness;
let peer: TestSmtpServer;
let setup: SendingSetup;
let receiver: WebhookReceiver;
let secret: string;

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  inbound = await startInboundHarness({ DATABASE_URL: h.env.DATABASE_URL! });
  h.dns.set('recipient.test', [{ type: 'MX', exchange: 'mx.recipient.test', priority: 10 }]);
  h.dns.set('mx.recipient.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
  setup = await h.createSendingSetup({ domain: 'shop.test' });
  receiver = await startWebhookReceiver();
  ({ secret } = await h.subscribeWebhooks(setup.accountId, receiver.url, ['email.bounced', 'email.complained']));
  h.startDaemon();
});
afterAll(async () => {
  await receiver.close();
  await peer.close();
  await inbound.close();
  await h.close();
});

/** Delivers a message to `to` (a delivery job here, or the running daemon's); returns the MAIL FROM the peer saw. */
async function deliver(to: string): Promise<{ emailId: string; mailFrom: string }> {
  const emailId = await h.queueEmail(setup, { to: [to], subject: 'Your receipt' });
  await h.runJob(emailId);
  await h.waitForStatus(emailId, ['accepted']);
  const received = peer.messages.find((m) => m.to.includes(to))!;
  return { emailId, mailFrom: received.from };
}

/** The webhook of this type the endpoint received, verified with the endpoint's secret. */
async function webhook(type: string): Promise<{ data: Record<string, unknown> }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = receiver.received.find((r) => JSON.parse(r.body).type === type);
    if (found) return new Webhook(secret).verify(found.body, found.headers as Record<string, string>) as { data: Record<string, unknown> };
    if (Date.now() > deadline) throw new Error(`no ${type} webhook`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What a Postfix sends back when a mailbox it accepted for turns out not to exist. */
const postfixDsn = (to: string, recipient: string) =>
  [
    'From: MAILER-DAEMON@mx.recipient.test (Mail Delivery System)',
    `To: ${to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
    '',
    '--B',
    'Content-Type: text/plain',
    '',
    'I\'m sorry to have to inform you that your message could not be delivered.',
    '',
    '--B',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.recipient.test',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 <' + recipient + '>: Recipient address rejected: User unknown',
    '',
    '--B--',
    '',
  ].join('\r\n');

/** An abuse report as a feedback loop sends it (RFC 5965). */
const complaint = (to: string, recipient: string) =>
  [
    'From: feedback@fbl.recipient.test',
    `To: ${to}`,
    'Subject: FW: Your receipt',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
    '',
    '--F',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--F',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: TestFBL/1.0',
    'Version: 1',
    `Original-Mail-From: <${to}>`,
    `Original-Rcpt-To: <${recipient}>`,
    '',
    '--F--',
    '',
  ].join('\r\n');

describe('the return path, end to end', () => {
  it('keeps the sender as MAIL FROM until the return path is verified', async () => {
    const { mailFrom } = await deliver('before@recipient.test');
    expect(mailFrom).toBe(setup.sender.email);
  });

  it('once verified, sends MAIL FROM b-<token>@bounces.<domain>, and a DSN to it bounces the accepted delivery (email.bounced webhook)', async () => {
    // The operator publishes the return-path records GET /v1/domains/{id}/dns lists, and the check verifies them.
    const domain = (await findActiveDomainById(h.deps.db, setup.domain.id))!;
    const records = requiredDnsRecords(domain, h.config.returnPath);
    for (const record of records.filter((r) => !r.purpose.startsWith('return_path'))) h.dns.set(record.name, [{ type: 'TXT', data: record.value }]);
    h.dns.set('bounces.shop.test', [
      { type: 'MX', exchange: records.find((r) => r.type === 'MX')!.value.split(' ')[1]!, priority: 10 },
      { type: 'TXT', data: records.find((r) => r.purpose === 'return_path_spf')!.value },
    ]);
    const checked = await checkDomainDns(h.deps.db, h.deps.dns, h.config.returnPath, h.config.encryptionKey, domain, h.deps.now);
    expect(checked).toMatchObject({ ownershipStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'verified', returnPathStatus: 'verified' });

    const { emailId, mailFrom } = await deliver('gone@recipient.test');
    expect(mailFrom).toMatch(/^b-[0-9a-z]{50}@bounces\.shop\.test$/);
    // Relaxed SPF alignment: the envelope domain is a subdomain of the From domain.
    expect(mailFrom.endsWith('.shop.test')).toBe(true);

    expect(await inbound.send([mailFrom], postfixDsn(mailFrom, 'gone@recipient.test'))).toEqual({ accepted: true, responseCode: 250 });

    const stored = await h.readEmail(emailId);
    expect(stored.email.status).toBe('bounced');
    expect(stored.deliveries[0]).toMatchObject({ status: 'bounced', cause: { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' } });
    expect(stored.events.map((e) => e.type)).toEqual(['queued', 'sending', 'accepted', 'bounced']);
    const [suppression] = await h.deps.db`select reason from suppressions where account_id = ${setup.accountId} and email = 'gone@recipient.test'`;
    expect(suppression).toEqual({ reason: 'hard_bounce' });
    expect((await webhook('email.bounced')).data).toMatchObject({
      email_id: emailId,
      recipient: 'gone@recipient.test',
      status: 'bounced',
      cause: { code: 'recipient_unknown' },
      subject: 'Your receipt',
    });
  });

  it('a complaint sent to the address the peer saw adds a complained event, a suppression and an email.complained webhook', async () => {
    const { emailId, mailFrom } = await deliver('grumpy@recipient.test');
    expect(await inbound.send([mailFrom], complaint(mailFrom, 'grumpy@recipient.test'))).toEqual({ accepted: true, responseCode: 250 });

    const stored = await h.readEmail(emailId);
    expect(stored.email.status).toBe('accepted');
    expect(stored.events.map((e) => e.type)).toEqual(['queued', 'sending', 'accepted', 'complained']);
    const [suppression] = await h.deps.db`select reason from suppressions where account_id = ${setup.accountId} and email = 'grumpy@recipient.test'`;
    expect(suppression).toEqual({ reason: 'complaint' });
    expect((await webhook('email.complained')).data).toMatchObject({ email_id: emailId, recipient: 'grumpy@recipient.test', status: 'accepted' });
  });
});
