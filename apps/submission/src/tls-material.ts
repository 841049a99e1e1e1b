import { readFile } from 'node:fs/promises';
import { generate } from 'selfsigned';
import type { Config } from '@mailer/config';
import type { Logger } from '@mailer/logger';

export interface TlsMaterial {
  key: string;
  cert: string;
  selfSigned: boolean;
}

/**
 * The certificate both ports present: SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY when set, else a
 * self-signed one for SMTP_HELO_NAME made now (docs/api-decisions.md, "SMTP submission"), with a
 * warning: clients then have to skip verification, which only suits development.
 */
export async function loadTlsMaterial(config: Config, logger: Logger): Promise<TlsMaterial> {
  const { tlsCertFile, tlsKeyFile } = config.submission;
  if (tlsCertFile && tlsKeyFile) {
    const [cert, key] = await Promise.all([readFile(tlsCertFile, 'utf8'), readFile(tlsKeyFile, 'utf8')]);
    return { cert, key, selfSigned: false };
  }
  const host = config.smtp.heloName;
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }] }],
  });
  logger.warn('SMTP submission uses a self-signed certificate made at start; set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY', { host });
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
