import { AppError, decideDomainCreation, newId, newOwnershipToken } from '@mailer/domain';
import { findActiveDomainKeys, findDomainQuota, insertDomain, type DomainQuota, type NewDkimKey } from '@mailer/db';
import { domainSchema, newSealedDkimKeys, serializeDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { createDomainBodySchema } from './create-domain.schema';
import { requireDomainView } from './domain-lookup';
import { sendJson } from '../../http/respond';

/** Enough for a conflicting domain to be deleted between our look-up and our insert, and then some. */
const MAX_ATTEMPTS = 3;

const limitReached = (quota: DomainQuota) =>
  new AppError('domain_limit_exceeded', `This account has ${quota.active} active domains, the most its plan allows (${quota.max}); delete one first.`);

export const createDomainRoute = defineRoute({
  method: 'post',
  path: '/v1/domains',
  operationId: 'createDomain',
  tag: 'domains',
  summary: 'Add a sending domain; its DKIM keys (RSA and Ed25519) and ownership token are generated.',
  description:
    'Creating again with the same name and the same external_id is a natural retry: 200 with the existing domain. ' +
    'Otherwise an active domain of that name is 409 domain_already_exists, and an external_id held by an active domain ' +
    'of another name is 409 external_id_conflict. A deleted domain frees its name and external_id. An account with as ' +
    "many active domains as its plan's max_domains (100 by default) gets 409 domain_limit_exceeded.",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_already_exists', 'external_id_conflict'],
  example: { name: 'example.com', external_id: 'tenant-42' },
  body: createDomainBodySchema,
  responses: {
    201: { description: 'Created.', schema: domainSchema, headers: ['Location'] },
    200: { description: 'A natural retry: the existing domain.', schema: domainSchema },
  },
  async handle({ res, deps, key, body }) {
    const input = body();
    const request = { name: input.name, externalId: input.external_id ?? null };
    let dkim: [NewDkimKey, NewDkimKey] | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const active = await findActiveDomainKeys(deps.db, key.accountId, request.name, request.externalId);
      const decision = decideDomainCreation(request, active);
      switch (decision.kind) {
        case 'natural_retry':
          sendJson(res, 200, serializeDomain(await requireDomainView(deps.db, key.accountId, decision.id)));
          return;
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
        const quota = await findDomainQuota(deps.db, key.accountId);
        if (quota.active >= quota.max) throw limitReached(quota);
        dkim = await newSealedDkimKeys(deps.config.encryptionKey);
      }
      const now = deps.now();
      const [rsa, ed25519] = dkim;
      const result = await insertDomain(deps.db, {
        id: newId('domain'),
        accountId: key.accountId,
        name: request.name,
        externalId: request.externalId,
        ownershipToken: newOwnershipToken(),
        dkimSelector: rsa.selector,
        dkimPublicKey: rsa.publicKey,
        dkimPrivateKeySealed: rsa.privateKeySealed,
        dkimEd25519Selector: ed25519.selector,
        dkimEd25519PublicKey: ed25519.publicKey,
        dkimEd25519PrivateKeySealed: ed25519.privateKeySealed,
        createdAt: now,
        updatedAt: now,
      });
      if (result.kind === 'limit_reached') throw limitReached(result.quota);
      // Taken: a concurrent request took the name or external_id first; decide again against it.
      if (result.kind === 'created') {
        const view = { ...result.domain, senderCount: 0, deliveryCounts: { accepted: 0, bounced: 0, failed: 0, deferred: 0 } };
        res.location(`/v1/domains/${result.domain.id}`);
        sendJson(res, 201, serializeDomain(view));
        return;
      }
    }
    throw new Error(`domain creation did not settle after ${MAX_ATTEMPTS} attempts`);
  },
});
