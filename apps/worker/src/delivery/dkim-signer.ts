import { createPrivateKey, type KeyObject } from 'node:crypto';
import MessageParser from 'nodemailer/lib/dkim/message-parser';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import signHeaders from 'nodemailer/lib/dkim/sign';
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
    async sign(message, domain) {
      const headerBytes = headerBlockLength(message);
      const parser = new MessageParser();
      parser.rawHeaders = message.subarray(0, headerBytes);
      const field = signHeaders(parser.parseHeaders(), HASH, await relaxedBodyHash(message.subarray(headerBytes)), {
        domainName: domain.name,
        keySelector: domain.selector,
        privateKey: keyFor(domain.sealedPrivateKey),
        headerFieldNames: DKIM_SIGNED_HEADERS,
      });
      if (!field) throw new Error(`the DKIM key of ${domain.name} could not sign`);
      return Buffer.concat([Buffer.from(`${field}\r\n`), message]);
    },
  };
}

/*
 * nodemailer's DKIM class (lib/dkim) signs a stream: the message goes through its header
 * parser, its relaxed-body transform and an output stream, chunk by chunk, with timer hops
 * between stages. Here the message is already one buffer, so its same parts (header parser,
 * relaxed body canonicalization, `sign`) are called on it directly and the signature field
 * is prepended, as the class does: the same bytes (a test compares them) for about a third
 * less CPU per message.
 */
const HASH = 'sha256';
const HEADER_END = Buffer.from('\r\n\r\n');

/** Bytes up to and including the empty line that ends the header block (all of them when there is no body). */
function headerBlockLength(message: Buffer): number {
  const end = message.indexOf(HEADER_END);
  return end < 0 ? message.length : end + HEADER_END.length;
}

/** The `bh=` value: base64 of the hash of the body's relaxed canonicalization (RFC 6376 section 3.4.4). */
function relaxedBodyHash(body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const canonical = new RelaxedBody({ hashAlgo: HASH });
    canonical.once('hash', resolve);
    canonical.updateHash(body);
    // Its end-of-body rules (trailing empty lines, the final CRLF) run where the stream ends.
    canonical._flush((error) => error && reject(error));
  });
}
