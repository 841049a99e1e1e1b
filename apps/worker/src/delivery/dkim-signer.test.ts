import { generateKeyPairSync, randomBytes } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import { DKIM_SEAL_PURPOSE, seal } from '@mailer/domain';
import { buildMime } from '@mailer/message';
import { createDkimSigner, DKIM_SIGNED_HEADERS } from './dkim-signer';

const encryptionKey = randomBytes(32);
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const domain = { name: 'acme.test', selector: 'mailer1', sealedPrivateKey: seal(encryptionKey, DKIM_SEAL_PURPOSE, pem) };

/** What nodemailer's DKIM class, streaming, makes of the same message. */
function signedByNodemailer(message: Buffer): Promise<Buffer> {
  const dkim = new DKIM({ domainName: domain.name, keySelector: domain.selector, privateKey: pem, headerFieldNames: DKIM_SIGNED_HEADERS });
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
  ])('signs %s with the same bytes as nodemailer’s streaming signer', async (_, text) => {
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
    const signed = await signer.sign(message, domain);
    expect(signed.toString('latin1')).toBe((await signedByNodemailer(message)).toString('latin1'));
    expect(signed.subarray(signed.length - message.length).equals(message)).toBe(true);
    expect(signed.toString('latin1')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;\r\n q=dns\/txt; s=mailer1;/);
  });
});
