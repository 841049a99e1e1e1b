import { simpleParser } from 'mailparser';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from '@mailer/submission/testing';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { dkimpyVerdict, verifyDkim } from './testing/verify-dkim';

/** A message submitted over SMTP, delivered by the daemon to a loopback peer, DKIM-signed as any other. */
let h: WorkerHarness;
let submission: SubmissionHarness;
let shop: SubmittingAccount;
let peer: TestSmtpServer;
let dkimRecord: { name: string; value: string };

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

beforeAll(async () => {
  h = await startWorkerHarness();
  submission = await startSubmissionHarness({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX! });
  shop = await submission.account({ domain: 'shop.test' });
  dkimRecord = { name: `${shop.domain.dkim.selector}._domainkey.shop.test`, value: `v=DKIM1; k=rsa; p=${shop.domain.dkim.publicKey}` };
  h.dns.set(dkimRecord.name, [{ type: 'TXT', data: dkimRecord.value }]);
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.41' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.41', port: h.smtpPort });
  h.startDaemon();
});
afterAll(async () => {
  await peer.close();
  await submission.close();
  await h.close();
});

it('delivers it with its inline image, without the BCC in any header, signed so that mailauth and dkimpy verify it', async () => {
  const sent = await submission.submit(shop.sendingKey, {
    from: `Shop <${shop.sender}>`,
    to: 'ann@rcpt.test',
    cc: 'bob@rcpt.test',
    bcc: 'hidden@rcpt.test',
    subject: 'Your order has shipped',
    text: 'Your order has shipped.',
    html: '<p><img src="cid:logo@shop.test" alt="Shop"> Your order has shipped.</p>',
    attachments: [{ filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@shop.test' }],
    headers: { 'List-Unsubscribe': '<https://shop.test/u/1>', 'X-Campaign': 'shipping', Organization: 'Shop Inc.' },
  });
  const id = /queued as (em_\w+)/.exec(sent.response)?.[1];
  expect(id).toBeDefined();
  await h.waitForStatus(id!, ['accepted']);

  const [received] = await peer.waitForMessages(1);
  expect(received!.to.sort()).toEqual(['ann@rcpt.test', 'bob@rcpt.test', 'hidden@rcpt.test']);
  expect(received!.raw.toString('latin1')).not.toContain('hidden');
  const parsed = await simpleParser(received!.raw, { keepCidLinks: true });
  expect(parsed.html).toContain('src="cid:logo@shop.test"');
  expect(parsed.attachments).toEqual([expect.objectContaining({ cid: 'logo@shop.test', contentType: 'image/png', content: PNG })]);
  expect(received!.raw.toString('latin1')).toMatch(/^List-Unsubscribe: <https:\/\/shop\.test\/u\/1>\r$/m);
  expect(parsed.headers.get('x-campaign')).toBe('shipping');
  expect(parsed.headers.has('organization')).toBe(false);

  expect((await verifyDkim(received!.raw, h.dns.address))[0]).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
  expect(await dkimpyVerdict(received!.raw, dkimRecord.name, dkimRecord.value)).toBe('pass');
});
