import { readFile } from 'node:fs/promises';
import { generate } from 'selfsigned';
import type { Config } from '@mailer/config';
import type { Logger } from '@mailer/logger';

/** What STARTTLS presents. */
export interface TlsMaterial {
  key: string;
  cert: string;
}

/**
 * The inbound listener's STARTTLS certificate (docs/api-decisions.md, "Inbound mail"):
 * INBOUND_TLS_CERT and INBOUND_TLS_KEY when set, else a self-signed one for INBOUND_HOST made at
 * start, with a warning. Sending MTAs encrypt opportunistically and rarely verify a certificate,
 * so nothing needs to be kept between starts.
 */
export async function loadInboundTls(config: Config, logger: Logger): Promise<TlsMaterial> {
  const { tlsCertFile, tlsKeyFile } = config.inbound;
  if (tlsCertFile && tlsKeyFile) {
    const [cert, key] = await Promise.all([readFile(tlsCertFile, 'utf8'), readFile(tlsKeyFile, 'utf8')]);
    return { cert, key };
  }
  const host = config.returnPath.inboundHost;
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }] }],
  });
  logger.warn('The inbound listener uses a self-signed certificate made at start; set INBOUND_TLS_CERT and INBOUND_TLS_KEY', { host });
  return { cert: pems.cert, key: pems.private };
}
