import { findDomain, listDkimKeys, storeEd25519Key, type Database, type DkimKeyRow, type DomainRow, type NewDkimKey, type Queryable } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, dkimKeyState, generateDkimKeyPair, seal, type DkimAlgorithm, type PublishedDkimKey } from '@mailer/domain';

/** A fresh key of the kind, its private key sealed under ENCRYPTION_KEY as every stored DKIM key is. */
export async function newSealedDkimKey(encryptionKey: Buffer, algorithm: DkimAlgorithm): Promise<NewDkimKey> {
  const pair = await generateDkimKeyPair(algorithm);
  return { algorithm, selector: pair.selector, publicKey: pair.publicKey, privateKeySealed: seal(encryptionKey, DKIM_SEAL_PURPOSE, pair.privateKeyPem) };
}

/** The pair every domain signs with (docs/api-decisions.md, "DKIM keys"): RSA-2048 and Ed25519, each on its own selector. */
export const newSealedDkimKeys = (encryptionKey: Buffer): Promise<[rsa: NewDkimKey, ed25519: NewDkimKey]> =>
  Promise.all([newSealedDkimKey(encryptionKey, 'rsa'), newSealedDkimKey(encryptionKey, 'ed25519')]);

/**
 * The domain with its Ed25519 key: a domain created before Ed25519 gets one at its first DNS
 * read or check (a migration cannot make keys), so that publishing one record is all its owner
 * does. Idempotent: when two readers race, the first key stored is the one both return.
 */
export async function ensureEd25519Key(db: Database, encryptionKey: Buffer, domain: DomainRow): Promise<DomainRow> {
  if (domain.dkimEd25519Selector !== null) return domain;
  await storeEd25519Key(db, domain.id, await newSealedDkimKey(encryptionKey, 'ed25519'));
  return (await findDomain(db, domain.accountId, domain.id)) ?? domain;
}

/** The domain's DKIM keys besides its active RSA key, as GET /dns lists them at `now`: the active Ed25519 key, then the others by dkimKeyState. */
export function publishedDkimKeys(domain: DomainRow, others: readonly DkimKeyRow[], now: Date): PublishedDkimKey[] {
  const ed25519: PublishedDkimKey[] =
    domain.dkimEd25519Selector !== null && domain.dkimEd25519PublicKey !== null
      ? [{ algorithm: 'ed25519', selector: domain.dkimEd25519Selector, publicKey: domain.dkimEd25519PublicKey, state: 'active', supersededAt: null }]
      : [];
  return [
    ...ed25519,
    ...others.map((key) => ({ algorithm: key.algorithm, selector: key.selector, publicKey: key.publicKey, state: dkimKeyState(key, now), supersededAt: key.supersededAt })),
  ];
}

/** publishedDkimKeys of the domain as stored. */
export async function loadPublishedDkimKeys(db: Queryable, domain: DomainRow, now: Date): Promise<PublishedDkimKey[]> {
  return publishedDkimKeys(domain, await listDkimKeys(db, domain.id), now);
}
