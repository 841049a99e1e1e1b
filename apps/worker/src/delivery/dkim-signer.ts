import { createPrivateKey, type KeyObject } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import { DKIM_SEAL_PURPOSE, unseal } from '@mailer/domain';

/**
 * The header fields signed (RFC 6376 section 5.4.1's recommended set, as nodemailer's
 * default list, which also covers the MIME headers and Message-ID). A field absent from
 * the message is left out of `h=`.
 */
export const DKIM_SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender',
  'Resent-To', 'Resent-Cc', 'Resent-Message-ID', 'In-Reply-To', 'References', 'List-Id', 'List-Help',
  'List-Unsubscribe', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
].join(':');

export interface SigningDomain {
  /** `d=`: the sending domain, so DMARC aligns with From. */
  name: string;
  /** `s=` */
  selector: string;
  /** `domains.dkim_private_key_sealed` */
  sealedPrivateKey: string;
}

export interface DkimSigner {
  /** Prepends a DKIM-Signature (rsa-sha256, relaxed/relaxed) to the message. */
  sign(message: Buffer, domain: SigningDomain): Promise<Buffer>;
}

/** Unsealed keys are kept parsed, by sealed value, so a busy domain costs one unseal. */
const KEY_CACHE_SIZE = 1_000;

export function createDkimSigner(encryptionKey: Buffer): DkimSigner {
  const keys = new Map<string, KeyObject>();
  const keyFor = (sealed: string): KeyObject => {
    let key = keys.get(sealed);
    if (!key) {
      key = createPrivateKey(unseal(encryptionKey, DKIM_SEAL_PURPOSE, sealed));
      if (keys.size >= KEY_CACHE_SIZE) keys.delete(keys.keys().next().value!);
      keys.set(sealed, key);
    }
    return key;
  };
  return {
    sign(message, domain) {
      const signer = new DKIM({
        domainName: domain.name,
        keySelector: domain.selector,
        privateKey: keyFor(domain.sealedPrivateKey),
        headerFieldNames: DKIM_SIGNED_HEADERS,
      });
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        const output = signer.sign(message);
        output.on('data', (chunk: Buffer) => chunks.push(chunk));
        output.once('error', reject);
        output.once('end', () => resolve(Buffer.concat(chunks)));
      });
    },
  };
}
