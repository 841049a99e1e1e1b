import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of secrets at rest (DKIM private keys). Format:
 * `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the key is derived from ENCRYPTION_KEY
 * per purpose so one secret never serves two uses.
 */
function purposeKey(masterKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', masterKey).update(`mailer/seal/${purpose}`).digest();
}

export function seal(masterKey: Buffer, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', purposeKey(masterKey, purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** Throws when the value was not sealed with this key for this purpose, or was altered. */
export function unseal(masterKey: Buffer, purpose: string, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', purposeKey(masterKey, purpose), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
