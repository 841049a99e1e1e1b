import { generateKeyPair } from 'node:crypto';
import { randomBase62 } from '../ids';

/** The two key types every domain signs with (docs/api-decisions.md, "DKIM keys"): `k=` of the record. */
export const DKIM_ALGORITHMS = ['rsa', 'ed25519'] as const;
export type DkimAlgorithm = (typeof DKIM_ALGORITHMS)[number];

export interface DkimKeyPair {
  algorithm: DkimAlgorithm;
  selector: string;
  /**
   * The `p=` of the DKIM TXT record: base64 DER SubjectPublicKeyInfo for RSA (RFC 6376), the
   * bare 32-byte public key for Ed25519 (RFC 8463 section 4).
   */
  publicKey: string;
  /** PKCS#8 PEM, as node's crypto takes it. */
  privateKeyPem: string;
}

/** An Ed25519 SubjectPublicKeyInfo is a fixed 12-byte header and the 32-byte key. */
const ED25519_RAW_KEY_BYTES = 32;

/**
 * A fresh key pair (RSA-2048 or Ed25519), made off the event loop, and a selector unique to
 * it (docs/api-decisions.md, "Domains").
 */
export function generateDkimKeyPair(algorithm: DkimAlgorithm = 'rsa'): Promise<DkimKeyPair> {
  const encodings = { publicKeyEncoding: { type: 'spki', format: 'der' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } } as const;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: Buffer, privateKey: string) => {
      if (error) return reject(error);
      resolve({
        algorithm,
        selector: `mlr${randomBase62(8).toLowerCase()}`,
        publicKey: (algorithm === 'ed25519' ? publicKey.subarray(-ED25519_RAW_KEY_BYTES) : publicKey).toString('base64'),
        privateKeyPem: privateKey,
      });
    };
    if (algorithm === 'ed25519') generateKeyPair('ed25519', encodings, done);
    else generateKeyPair('rsa', { modulusLength: 2048, ...encodings }, done);
  });
}

export const DKIM_SEAL_PURPOSE = 'dkim-private-key';
