import { findActiveDomainKeys, findDomainQuota, findDomainView, insertDomain, type Database, type DomainQuota, type NewDkimKey } from '@mailer/db';
import { AppError, decideDomainCreation, newId, newOwnershipToken } from '@mailer/domain';
import { newSealedDkimKeys } from './dkim-keys';
import { domainNotFound } from './domain-not-found';
import { serializeDomain, type DomainRepresentation } from './domain-representation';

/** Enough for a conflicting domain to be deleted between our look-up and our insert, and then some. */
const MAX_ATTEMPTS = 3;

const limitReached = (quota: DomainQuota) =>
  new AppError('domain_limit_exceeded', `This account has ${quota.active} active domains, the most its plan allows (${quota.max}); delete one first.`);

/**
 * Adds a sending domain to the account with new DKIM keys (RSA and Ed25519) and ownership token (POST /v1/domains
 * and the console). The same name and external_id again is a natural retry: the existing domain,
 * `created: false`. Throws domain_already_exists, external_id_conflict or domain_limit_exceeded.
 * `request.name` is already normalized (normalizeDomainName).
 */
export async function createDomain(
  db: Database,
  encryptionKey: Buffer,
  accountId: string,
  request: { name: string; externalId: string | null },
  now: () => Date,
): Promise<{ created: boolean; domain: DomainRepresentation }> {
  let dkim: [NewDkimKey, NewDkimKey] | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const active = await findActiveDomainKeys(db, accountId, request.name, request.externalId);
    const decision = decideDomainCreation(request, active);
    switch (decision.kind) {
      case 'natural_retry': {
        const existing = await findDomainView(db, accountId, decision.id);
        if (!existing) throw domainNotFound();
        return { created: false, domain: serializeDomain(existing) };
      }
      case 'name_taken':
        throw new AppError('domain_already_exists', `An active domain ${request.name} already exists in this account.`, {
          details: [{ path: 'name', message: 'already an active domain of this account' }],
        });
      case 'external_id_taken':
        throw new AppError('external_id_conflict', 'This external_id belongs to another active domain of this account.', {
          details: [{ path: 'external_id', message: 'held by an active domain of another name' }],
        });
    }
    if (!dkim) {
      const quota = await findDomainQuota(db, accountId);
      if (quota.active >= quota.max) throw limitReached(quota);
      dkim = await newSealedDkimKeys(encryptionKey);
    }
    const at = now();
    const [rsa, ed25519] = dkim;
    const result = await insertDomain(db, {
      id: newId('domain'),
      accountId,
      name: request.name,
      externalId: request.externalId,
      ownershipToken: newOwnershipToken(),
      dkimSelector: rsa.selector,
      dkimPublicKey: rsa.publicKey,
      dkimPrivateKeySealed: rsa.privateKeySealed,
      dkimEd25519Selector: ed25519.selector,
      dkimEd25519PublicKey: ed25519.publicKey,
      dkimEd25519PrivateKeySealed: ed25519.privateKeySealed,
      createdAt: at,
      updatedAt: at,
    });
    if (result.kind === 'limit_reached') throw limitReached(result.quota);
    // Taken: a concurrent request took the name or external_id first; decide again against it.
    if (result.kind === 'created') {
      const view = { ...result.domain, senderCount: 0, deliveryCounts: { accepted: 0, bounced: 0, failed: 0, deferred: 0 } };
      return { created: true, domain: serializeDomain(view) };
    }
  }
  throw new Error(`domain creation did not settle after ${MAX_ATTEMPTS} attempts`);
}
