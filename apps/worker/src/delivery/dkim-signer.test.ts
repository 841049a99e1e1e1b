import { randomBytes } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import { buildMime } from '@mailer/message';
import { dkimVerdict, testSigningDomain } from '../testing/verify-dkim';
import { createDkimSigner, DKIM_SIGNED_HEADERS } from './dkim-signer';

const key = testSigningDomain();
const { encryptionKey, pem, selector, domain } = key;
const verified = (signed: Buffer) => dkimVerdict(signed, key);

/** The tags of a DKIM-Signature field, unfolded. */
const tagsOf = (signed: Buffer) =>
  Object.fromEntries(
    signed
      .toString('latin1')
      .split('\r\n\r\n')[0]!
      .match(/^DKIM-Signature:(.*(?:\r\n[ \t].*)*)/)![1]!
      .replace(/\r\n[ \t]/g, '')
      .split(';')
      .map((tag) => tag.trim().split(/=(.*)/s, 2) as [string, string]),
  );

/** What nodemailer's DKIM class, streaming, makes of the same message. */
function signedByNodemailer(message: Buffer): Promise<Buffer> {
  const dkim = new DKIM({ domainName: domain.name, keySelector: selector, privateKey: pem, headerFieldNames: DKIM_SIGNED_HEADERS });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const output = dkim.sign(message);
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    output.once('error', reject);
    output.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

const headers = 'From: Acme <hello@acme.test>\r\nTo: ann@example.test\r\nSubject:  Folded\r\n  subject \t line\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMessage-ID: <a@acme.test>\r\nX-Other: not signed\r\n';

describe('DKIM signer', () => {
  const signer = createDkimSigner(encryptionKey);

  it.each([
    ['a composed message with parts', null],
    ['whitespace runs and trailing whitespace', `${headers}\r\nHello  \t world \r\n\tindented\r\n`],
    ['trailing empty lines', `${headers}\r\nbody\r\n\r\n\r\n`],
    ['no final line break', `${headers}\r\nlast line without CRLF`],
    ['a lone CR and bare LFs', `${headers}\r\nfirst\rsecond\nthird\r\n`],
    ['an empty body', `${headers}\r\n`],
    ['no body at all', headers],
  ])('signs %s as nodemailer’s streaming signer does, with t= and From over-signed', async (_, text) => {
    const message = text
      ? Buffer.from(text, 'latin1')
      : buildMime({
          from: { address: 'hello@acme.test', name: 'Acme' },
          to: ['ann@example.test'],
          cc: ['bob@example.test'],
          subject: 'Ünïcode subject',
          text: 'Thanks!\n'.repeat(200),
          html: '<p>Thanks!</p>',
          attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', content: randomBytes(3000) }],
          messageId: '<b@acme.test>',
          date: new Date('2026-11-22T10:00:00.000Z'),
        });
    const before = Math.floor(Date.now() / 1000);
    const signed = await signer.sign(message, domain);
    const theirs = tagsOf(await signedByNodemailer(message));
    const ours = tagsOf(signed);
    expect(ours).toMatchObject({ v: '1', a: 'rsa-sha256', c: 'relaxed/relaxed', d: 'acme.test', q: 'dns/txt', s: 'mailer1', bh: theirs.bh });
    expect(ours.h!.replace(/\s/g, '')).toBe(`${theirs.h}:from`);
    expect(Number(ours.t)).toBeGreaterThanOrEqual(before);
    expect(Number(ours.t)).toBeLessThanOrEqual(Date.now() / 1000);
    expect(signed.subarray(signed.length - message.length).equals(message)).toBe(true);
    expect(signed.toString('latin1')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;\r\n q=dns\/txt; s=mailer1;/);
    expect(signed.toString('latin1').split('\r\n\r\n')[0]!.split('\r\n').every((line) => line.length <= 78)).toBe(true);
    // mailauth reads a message without the empty line after its header as nothing but body.
    if (text !== headers) expect(await verified(signed)).toBe('pass');
  });

  it('fails verification once a second From is added (From is over-signed)', async () => {
    const signed = await signer.sign(Buffer.from(`${headers}\r\nbody\r\n`, 'latin1'), domain);
    expect(await verified(signed)).toBe('pass');
    const [field, rest] = [signed.subarray(0, signed.indexOf('\r\nFrom:') + 2), signed.subarray(signed.indexOf('\r\nFrom:') + 2)];
    expect(await verified(Buffer.concat([field, Buffer.from('From: Mallory <m@evil.test>\r\n'), rest]))).toBe('fail');
  });
});
