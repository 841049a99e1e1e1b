import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import MessageParser from 'nodemailer/lib/dkim/message-parser';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import signHeaders from 'nodemailer/lib/dkim/sign';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import type { DkimSigningKey } from '@mailer/operations';
import { DKIM_SEAL_PURPOSE, unseal } from '@mailer/domain';

/**
 * The header fields signed (RFC 6376 section 5.4.1's recommended set, as nodemailer's
 * default list, which also covers the MIME headers and Message-ID), plus
 * List-Unsubscribe-Post: one-click unsubscription counts only when the signature covers it
 * and List-Unsubscribe (RFC 8058 section 4). A field absent from the message is left out of `h=`.
 */
export const DKIM_SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender',
  'Resent-To', 'Resent-Cc', 'Resent-Message-ID', 'In-Reply-To', 'References', 'List-Id', 'List-Help',
  'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
].join(':');

export interface SigningDomain {
  /** `d=`: the sending domain, so DMARC aligns with From. */
  name: string;
  /** One signature per key, in this order from the top: the RSA key, then the Ed25519 key once its record verified. */
  keys: DkimSigningKey[];
}

export interface DkimSigner {
  /**
   * Prepends a DKIM-Signature (relaxed/relaxed) per key to the message: `rsa-sha256`, or
   * `ed25519-sha256` (RFC 8463), each with `t=` (when it was signed) and `from` named twice in
   * `h=`: a field named more often than the message has it is signed as absent (RFC 6376
   * section 5.4.2), so a From added on the way breaks the signature. The signatures cover the
   * same fields, not each other, so each verifies alone.
   */
  sign(message: Buffer, domain: SigningDomain): Promise<Buffer>;
}

/** `a=` per key type. */
const SIGNING_ALGORITHM = { rsa: 'rsa-sha256', ed25519: 'ed25519-sha256' } as const;

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
      const signed = signHeaders.relaxedHeaders(parser.parseHeaders(), DKIM_SIGNED_HEADERS);
      const bodyHash = await relaxedBodyHash(message.subarray(headerBytes));
      const t = Math.floor(Date.now() / 1000);
      const fields = domain.keys.map((key) => {
        const tags = [
          'v=1',
          `a=${SIGNING_ALGORITHM[key.algorithm]}`,
          'c=relaxed/relaxed',
          `d=${domain.name}`,
          'q=dns/txt',
          `s=${key.selector}`,
          `t=${t}`,
          `bh=${bodyHash}`,
          // A space after each colon (FWS, which RFC 6376 section 3.5 allows there) lets the list fold to 78-octet lines.
          `h=${`${signed.fieldNames}:from`.replaceAll(':', ': ')}`,
        ];
        const unsigned = `${foldLines(`DKIM-Signature: ${tags.join('; ')}`, 76)};\r\n b=`;
        // Header lines are 'binary' strings (one character per byte), as nodemailer's `sign` hashes them.
        const data = Buffer.from(signed.headers + signHeaders.relaxedHeaders([{ key: 'dkim-signature', line: unsigned }], 'dkim-signature').headers.slice(0, -2), 'latin1');
        const privateKey = keyFor(key.sealedPrivateKey);
        // Ed25519 signs the SHA-256 hash of the data, not the data (RFC 8463 section 3).
        const signature = (key.algorithm === 'ed25519' ? sign(null, createHash(HASH).update(data).digest(), privateKey) : sign(HASH, data, privateKey)).toString('base64');
        // Folded as nodemailer folds `b=`: 73 characters on the first line, 75 on each next one.
        return `${unsigned}${signature.replace(/(^.{73}|.{75}(?!$))/g, '$&\r\n ')}\r\n`;
      });
      return Buffer.concat([Buffer.from(fields.join('')), message]);
    },
  };
}

/*
 * nodemailer's DKIM class (lib/dkim) signs a stream: the message goes through its header
 * parser, its relaxed-body transform and an output stream, chunk by chunk, with timer hops
 * between stages. Here the message is already one buffer, so its same parts (header parser,
 * relaxed header and body canonicalization) are called on it directly and the signature field
 * is prepended, as the class does, for about a third less CPU per message. Its `sign` writes
 * neither `t=` nor a field twice in `h=` (it keeps the names of the fields present, once each),
 * so the field is put together here as `sign` does it, with those two tags added (a test
 * compares it with nodemailer's and verifies it with mailauth).
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
