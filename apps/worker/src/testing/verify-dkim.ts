import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { dkimVerify, type DKIMResult } from 'mailauth';
import { DKIM_SEAL_PURPOSE, seal } from '@mailer/domain';
import type { SigningDomain } from '../delivery/dkim-signer';

/**
 * Verifies a delivered message's DKIM signatures with an independent implementation
 * (mailauth), looking keys up in the test DNS server like a receiving MTA would.
 */
export async function verifyDkim(raw: Buffer, dnsAddress: string): Promise<DKIMResult[]> {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([dnsAddress]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, rrtype: string) => (rrtype === 'TXT' ? resolver.resolveTxt(name) : (resolver.resolve(name, rrtype) as Promise<string[]>)),
  });
  return result.results;
}

/** A signing domain with a fresh key, sealed as the daemon stores it, and the TXT record that publishes it. */
export function testSigningDomain(name = 'acme.test', selector = 'mailer1') {
  const encryptionKey = randomBytes(32);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const domain: SigningDomain = { name, keys: [{ algorithm: 'rsa', selector, sealedPrivateKey: seal(encryptionKey, DKIM_SEAL_PURPOSE, pem) }] };
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  return { encryptionKey, pem, selector, domain, record };
}

/** mailauth's verdict on a message's first DKIM signature, the key found at the domain's selector. */
export async function dkimVerdict(signed: Buffer, { domain, selector, record }: { domain: SigningDomain; selector: string; record: string }): Promise<string> {
  const { results } = await dkimVerify(signed, {
    resolver: async (name: string) => {
      if (name !== `${selector}._domainkey.${domain.name}`) throw Object.assign(new Error(`no record at ${name}`), { code: 'ENOTFOUND' });
      return [[record]];
    },
  });
  return results[0]!.status.result;
}

/**
 * dkimpy's verdict (Debian's python3-dkim, run by /usr/bin/python3) on a delivered message: a
 * second independent verifier, answering the key lookup with the record published at `name`.
 */
export async function dkimpyVerdict(raw: Buffer, name: string, record: string): Promise<'pass' | 'fail'> {
  const script = [
    'import dkim, os, sys',
    "name, record = os.environ['DKIM_NAME'].encode(), os.environ['DKIM_RECORD'].encode()",
    "lookup = lambda queried, timeout=5: record if queried.rstrip(b'.') == name else None",
    "print('pass' if dkim.verify(sys.stdin.buffer.read(), dnsfunc=lookup) else 'fail')",
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', ['-c', script], { env: { DKIM_NAME: name, DKIM_RECORD: record } }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.trim() as 'pass' | 'fail');
    });
    child.stdin!.end(raw);
  });
}
