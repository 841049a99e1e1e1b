import { ConfigError, type Config } from '@mailer/config';
import { isDatabaseUnavailable, newestSealedDkimKey, resealSecrets, type Database, type Queryable, type SealedSecret } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, seal, unseal, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import type { Logger } from '@mailer/logger';

const PURPOSE: Record<SealedSecret['kind'], string> = {
  dkim_private_key: DKIM_SEAL_PURPOSE,
  webhook_secret: WEBHOOK_SECRET_SEAL_PURPOSE,
  webhook_credentials: WEBHOOK_CREDENTIALS_SEAL_PURPOSE,
};

const opens = (key: Buffer, { sealed, kind }: Pick<SealedSecret, 'sealed' | 'kind'>) => {
  try {
    unseal(key, PURPOSE[kind], sealed);
    return true;
  } catch {
    return false;
  }
};

/**
 * Run by the API and the delivery daemon before they serve (docs/api-decisions.md,
 * "Operations"): a configured ENCRYPTION_KEY that cannot open the stored DKIM keys is
 * refused with a ConfigError naming the variable, and the development key is a warning.
 * A database that is unreachable at start is a warning too: the process starts as it
 * would otherwise, answering 503 until the database is back.
 */
export async function checkEncryptionKey(db: Queryable, config: Config, logger: Logger): Promise<void> {
  if (config.usesDevelopmentEncryptionKey) {
    logger.warn(
      'ENCRYPTION_KEY is not set: the development key seals DKIM keys and signs cursors; set ENCRYPTION_KEY in production (README, "Moving off the development key")',
      { variable: 'ENCRYPTION_KEY' },
    );
  }
  let stored: SealedSecret | undefined;
  try {
    stored = await newestSealedDkimKey(db);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    logger.warn('ENCRYPTION_KEY not checked against the stored DKIM keys: the database is unreachable', { error: (error as Error).message });
    return;
  }
  if (stored && !opens(config.encryptionKey, stored)) {
    throw new ConfigError(
      `ENCRYPTION_KEY cannot open the stored DKIM private keys (domain ${stored.id}): start with the key they were sealed ` +
        'under, or re-seal them under this one with `npm run -s cli -- secrets reseal --from-key-env VAR`',
    );
  }
}

const WHAT: Record<SealedSecret['kind'], string> = {
  dkim_private_key: 'DKIM key of domain',
  webhook_secret: 'signing secret of webhook',
  webhook_credentials: 'Basic credentials of webhook',
};

/** A stored secret that neither the old nor the new key opens; nothing was re-sealed. */
export class UnreadableSecretError extends Error {
  override readonly name = 'UnreadableSecretError';

  constructor(readonly secret: Pick<SealedSecret, 'id' | 'kind'>) {
    super(`the ${WHAT[secret.kind]} ${secret.id} opens neither with the old key nor with ENCRYPTION_KEY`);
  }
}

/**
 * Re-seals every stored secret from `fromKey` to `toKey` in one transaction. A secret that
 * already opens with `toKey` is left as it is, so a re-run after a partial switch completes
 * it; one that opens with neither rolls everything back (UnreadableSecretError).
 */
export function resealStoredSecrets(db: Database, fromKey: Buffer, toKey: Buffer): Promise<{ resealed: number; unchanged: number }> {
  return resealSecrets(db, (secret) => {
    if (opens(toKey, secret)) return undefined;
    let plaintext: string;
    try {
      plaintext = unseal(fromKey, PURPOSE[secret.kind], secret.sealed);
    } catch {
      throw new UnreadableSecretError(secret);
    }
    return seal(toKey, PURPOSE[secret.kind], plaintext);
  });
}
