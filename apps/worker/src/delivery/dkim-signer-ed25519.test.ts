import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { dkimVerify } from 'mailauth';
import { DKIM_SEAL_PURPOSE, dkimRecordValue, generateDkimKeyPair, seal } from '@mailer/domain';
import { buildMime } from '@mailer/message';
import { verifyWithDkimpy } from '../testing/verify-dkim-dkimpy';
import { createDkimSigner, type SigningDomain } from './dkim-signer';

const encryptionKey = randomBytes(32);
let domain: SigningDomain;
let records: Record<string, string>;

beforeAll(async () => {
  const [rsa, ed25519] = await Promise.all([generateDkimKeyPair('rsa'), generateDkimKeyPair('ed25519')]);
  domain = {
    name: 'acme.test',
    keys: [rsa, ed25519].map((key) => ({ algorithm: key.algorithm, selector: key.selector, sealedPrivateKey: seal(encryptionKey, DKIM_SEAL_PURPOSE, key.privateKeyPem) })),
  };
  // The records exactly as GET /v1/domains/{id}/dns lists them.
  records = Object.fromEntries([rsa, ed25519].map((key) => [`${key.selector}._domainkey.acme.test`, dkimRecordValue(key.publicKey, key.algorithm)]));
});

/** mailauth's verdicts, top down, looking keys up in `records`. */
async function mailauthVerdicts(message: Buffer): Promise<{ algorithm: string | undefined; result: string }[]> {
  const { results } = await dkimVerify(message, {
    resolver: async (name: string) => {
      const record = records[name];
      if (!record) throw Object.assign(new Error(`no record at ${name}`), { code: 'ENOTFOUND' });
      return [[record]];
    },
  });
  return results.map((r) => ({ algorithm: (r as { algo?: string }).algo, result: r.status.result }));
}

const BOTH_PASS = [
  { algorithm: 'rsa-sha256', pass: true },
  { algorithm: 'ed25519-sha256', pass: true },
];

/** Text with what canonicalization cares about: whitespace runs, trailing blanks, bare CR and LF, empty lines, non-ASCII. */
const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\t', '\r', '\n', '\r\n', '.', 'é', '€', '😀', '-', '='), maxLength: 400 });
/**
 * A body as a receiver gets it: CRLF line ends only (packages/message wire-safe) and a final CRLF
 * (SMTP's DATA ends with one), with whitespace runs, trailing blanks and empty lines.
 */
const wireBody = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\t', '\r\n', '.', '-', '='), maxLength: 400 });

describe('Ed25519 beside RSA', () => {
  const signer = createDkimSigner(encryptionKey);

  it('signs random messages with rsa-sha256 and ed25519-sha256, both verified by mailauth and by dkimpy', async () => {
    const signed: Buffer[] = [];
    await fc.assert(
      fc.asyncProperty(text, text, fc.option(text, { nil: null }), fc.option(fc.uint8Array({ maxLength: 2000 }), { nil: null }), async (subject, body, html, attachment) => {
        const message = buildMime({
          from: { address: 'hello@acme.test', name: 'Acme' },
          to: ['ann@example.test'],
          cc: [],
          subject,
          text: body,
          html,
          attachments: attachment ? [{ filename: 'a.bin', contentType: 'application/octet-stream', content: Buffer.from(attachment) }] : [],
          messageId: '<random@acme.test>',
          date: new Date('2026-11-27T12:00:00Z'),
        });
        const result = await signer.sign(message, domain);
        signed.push(result);
        expect(await mailauthVerdicts(result)).toEqual([
          { algorithm: 'rsa-sha256', result: 'pass' },
          { algorithm: 'ed25519-sha256', result: 'pass' },
        ]);
      }),
      { numRuns: 40 },
    );
    const verdicts = await verifyWithDkimpy(signed, records);
    expect(verdicts).toEqual(signed.map(() => BOTH_PASS));
  });

  it('signs random raw bodies the same way, and both signatures fail once the body changes', async () => {
    const headers = 'From: Acme <hello@acme.test>\r\nTo: ann@example.test\r\nSubject: raw\r\nMessage-ID: <raw@acme.test>\r\n\r\n';
    const bodies = fc.sample(wireBody, { numRuns: 30, seed: 36 });
    const signed = await Promise.all(bodies.map((body) => signer.sign(Buffer.from(`${headers}${body}\r\n`, 'utf8'), domain)));
    const tampered = signed.map((message) => Buffer.concat([message, Buffer.from('tampered\r\n')]));
    const verdicts = await verifyWithDkimpy([...signed, ...tampered], records);
    expect(verdicts.slice(0, signed.length)).toEqual(signed.map(() => BOTH_PASS));
    expect(verdicts.slice(signed.length)).toEqual(tampered.map(() => BOTH_PASS.map((v) => ({ ...v, pass: false }))));
    // mailauth calls a body hash mismatch `neutral` (RFC 6376 section 6.3 leaves it to the verifier); either way not a pass.
    for (const message of tampered) {
      const results = (await mailauthVerdicts(message)).map((v) => v.result);
      expect(results).toHaveLength(2);
      expect(results).not.toContain('pass');
    }
  });

  it('signs with the RSA key alone while the Ed25519 record is not verified', async () => {
    const signedOnce = await signer.sign(Buffer.from('From: a@acme.test\r\nSubject: one\r\n\r\nbody\r\n'), { ...domain, keys: domain.keys.slice(0, 1) });
    expect(await mailauthVerdicts(signedOnce)).toEqual([{ algorithm: 'rsa-sha256', result: 'pass' }]);
  });
});
