import { generateKeyPair } from 'node:crypto';
import { randomBase62 } from '../ids';

export interface DkimKeyPair {
  selector: string;
  /** Base64 DER SubjectPublicKeyInfo: the `p=` of the DKIM TXT record. */
  publicKey: string;
  /** PKCS#8 PEM, as nodemailer's DKIM signer takes it. */
  privateKeyPem: string;
}

/** A fresh RSA-2048 key pair and a selector unique to it (docs/api-decisions.md, "Domains"). */
export function generateDkimKeyPair(): Promise<DkimKeyPair> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'der' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (error, publicKey, privateKey) => {
        if (error) return reject(error);
        resolve({ selector: `mlr${randomBase62(8).toLowerCase()}`, publicKey: publicKey.toString('base64'), privateKeyPem: privateKey });
      },
    );
  });
}

export const DKIM_SEAL_PURPOSE = 'dkim-private-key';
