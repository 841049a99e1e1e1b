import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from '@mailer/config';
import type { Logger } from '@mailer/logger';

export interface TlsMaterial {
  key: string;
  cert: string;
  selfSigned: boolean;
  /** The certificate's SHA-256 fingerprint (`AA:BB:…`), what a client pins. */
  fingerprint256: string;
  /** Where a self-signed certificate is kept (the file a client trusts); absent for SUBMISSION_TLS_CERT. */
  certFile?: string;
}

export const SELF_SIGNED_CERT_FILE = 'submission-cert.pem';
export const SELF_SIGNED_KEY_FILE = 'submission-key.pem';
const VALIDITY_MS = 825 * 24 * 3600 * 1000;
/** A kept certificate this close to its end is replaced at start. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/**
 * The certificate both ports present: SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY when set, else a
 * self-signed one (docs/api-decisions.md, "SMTP submission"), with a warning. The self-signed pair
 * is kept in SUBMISSION_TLS_DIR and used again at the next start, so that a client can trust that
 * file or pin its fingerprint; it is made anew only when missing, unreadable, near its end or not
 * valid for SMTP_HELO_NAME.
 */
export async function loadTlsMaterial(config: Config, logger: Logger): Promise<TlsMaterial> {
  const { tlsCertFile, tlsKeyFile, selfSignedDir } = config.submission;
  if (tlsCertFile && tlsKeyFile) {
    const [cert, key] = await Promise.all([readFile(tlsCertFile, 'utf8'), readFile(tlsKeyFile, 'utf8')]);
    return { cert, key, selfSigned: false, fingerprint256: new X509Certificate(cert).fingerprint256 };
  }
  const host = config.smtp.heloName;
  const directory = resolve(selfSignedDir);
  const certFile = join(directory, SELF_SIGNED_CERT_FILE);
  const keyFile = join(directory, SELF_SIGNED_KEY_FILE);
  let pair = await keptPair(certFile, keyFile, host);
  const made = !pair;
  let kept = true;
  if (!pair) {
    pair = await selfSignedPair(host);
    kept = await keep(directory, certFile, keyFile, pair, logger);
  }
  const fingerprint256 = new X509Certificate(pair.cert).fingerprint256;
  logger.warn('SMTP submission uses a self-signed certificate; set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY, or have clients trust its file or pin its fingerprint', {
    host,
    ...(kept ? { cert_file: certFile } : {}),
    sha256_fingerprint: fingerprint256,
    made_now: made,
  });
  return { ...pair, selfSigned: true, fingerprint256, ...(kept ? { certFile } : {}) };
}

/**
 * Writes a new pair into the directory; false, with a warning, when it cannot (a read-only
 * checkout, another user's): the listener still starts, with a certificate made for this run.
 */
async function keep(directory: string, certFile: string, keyFile: string, pair: { cert: string; key: string }, logger: Logger): Promise<boolean> {
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    // Key first, each through a rename: a crash never leaves a certificate without its key.
    await writeAtomically(keyFile, pair.key, 0o600);
    await writeAtomically(certFile, pair.cert, 0o644);
    return true;
  } catch (error) {
    logger.warn('the self-signed certificate cannot be kept: it is made anew at each start; set SUBMISSION_TLS_DIR to a writable directory', {
      variable: 'SUBMISSION_TLS_DIR',
      directory,
      error: (error as Error).message,
    });
    return false;
  }
}

/** The kept pair when both files read, the certificate is valid for `host` and not near its end. */
async function keptPair(certFile: string, keyFile: string, host: string): Promise<{ cert: string; key: string } | undefined> {
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const x509 = new X509Certificate(cert);
    const fresh = Date.parse(x509.validTo) - Date.now() > RENEW_BEFORE_MS;
    return fresh && x509.checkHost(host) !== undefined ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}

/** For SMTP_HELO_NAME and the loopback names a development client connects to. */
async function selfSignedPair(host: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: host },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function writeAtomically(file: string, text: string, mode: number): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, text, { mode });
  await rename(partial, file);
}
