import { DKIM_SEAL_PURPOSE, generateDkimKeyPair, newId, newOwnershipToken, seal, type DkimKeyPair } from '@mailer/domain';
import { domains, senders, type Database } from '@mailer/db';

/**
 * Rows written straight to the database, for tests whose subject is not the domain or
 * sender routes themselves (intake, delivery). Route tests go through HTTP instead.
 */
export interface ReadyDomain {
  id: string;
  name: string;
  dkim: DkimKeyPair;
}

export async function insertReadyDomain(
  db: Database,
  encryptionKey: Buffer,
  accountId: string,
  name: string,
): Promise<ReadyDomain> {
  const dkim = await generateDkimKeyPair();
  const id = newId('domain');
  await db.insert(domains).values({
    id,
    accountId,
    name,
    ownershipToken: newOwnershipToken(),
    dkimSelector: dkim.selector,
    dkimPublicKey: dkim.publicKey,
    dkimPrivateKeySealed: seal(encryptionKey, DKIM_SEAL_PURPOSE, dkim.privateKeyPem),
    ownershipStatus: 'verified',
    dkimStatus: 'verified',
    dmarcStatus: 'verified',
  });
  return { id, name, dkim };
}

export interface SenderOptions {
  displayName?: string | null;
  policy?: 'require_tls' | 'opportunistic';
}

export async function insertSender(db: Database, accountId: string, domainId: string, email: string, options: SenderOptions = {}) {
  const id = newId('sender');
  await db.insert(senders).values({
    id,
    accountId,
    domainId,
    email,
    emailKey: email.toLowerCase(),
    displayName: options.displayName ?? null,
    transportSecurityPolicy: options.policy ?? 'opportunistic',
  });
  return { id, email };
}
