import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { X509Certificate } from 'node:crypto';
import { loadConfig } from '@mailer/config';
import { createLogger } from '@mailer/logger';
import { loadTlsMaterial, SELF_SIGNED_CERT_FILE, SELF_SIGNED_KEY_FILE } from './tls-material';

/** The self-signed certificate is kept across starts (docs/api-decisions.md, "SMTP submission"). */
let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'mailer-tls-material-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const start = async (heloName: string, tlsDir = directory) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))));
  const logger = createLogger({ level: 'info', service: 'submission', stream });
  const tls = await loadTlsMaterial(loadConfig({ SMTP_HELO_NAME: heloName, SUBMISSION_TLS_DIR: tlsDir }), logger);
  await new Promise((resolve) => setImmediate(resolve));
  return { tls, lines };
};

describe('the self-signed submission certificate', () => {
  it('is made once, kept in SUBMISSION_TLS_DIR (key readable by its owner only) and presented again at the next start', async () => {
    const first = await start('submit.mailer.test');
    expect(first.tls).toMatchObject({ selfSigned: true, certFile: join(directory, SELF_SIGNED_CERT_FILE) });
    expect(readFileSync(first.tls.certFile!, 'utf8')).toBe(first.tls.cert);
    expect(statSync(join(directory, SELF_SIGNED_KEY_FILE)).mode & 0o777).toBe(0o600);
    const x509 = new X509Certificate(first.tls.cert);
    expect(first.tls.fingerprint256).toBe(x509.fingerprint256);
    for (const name of ['submit.mailer.test', 'localhost']) expect(x509.checkHost(name)).toBe(name);
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(first.lines).toContainEqual(expect.objectContaining({ level: 'warn', sha256_fingerprint: x509.fingerprint256, cert_file: first.tls.certFile, made_now: true }));

    const second = await start('submit.mailer.test');
    expect([second.tls.cert, second.tls.key, second.tls.fingerprint256]).toEqual([first.tls.cert, first.tls.key, first.tls.fingerprint256]);
    expect(second.lines).toContainEqual(expect.objectContaining({ sha256_fingerprint: first.tls.fingerprint256, made_now: false }));

    // Another SMTP_HELO_NAME: the kept certificate is not valid for it, so a new one replaces it.
    const renamed = await start('other.mailer.test');
    expect(renamed.tls.fingerprint256).not.toBe(first.tls.fingerprint256);
    expect(new X509Certificate(readFileSync(renamed.tls.certFile!)).checkHost('other.mailer.test')).toBe('other.mailer.test');
  });

  it('still starts, with a certificate of this run and a warning naming SUBMISSION_TLS_DIR, where the directory cannot be written', async () => {
    writeFileSync(join(directory, 'a-file'), '');
    const unwritable = join(directory, 'a-file', 'tls');
    const { tls, lines } = await start('submit.mailer.test', unwritable);
    expect(tls.selfSigned).toBe(true);
    expect(tls.certFile).toBeUndefined();
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', variable: 'SUBMISSION_TLS_DIR', directory: unwritable }));
    expect(lines).toContainEqual(expect.objectContaining({ sha256_fingerprint: tls.fingerprint256, made_now: true }));
  });
});
