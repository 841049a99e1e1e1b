import { z } from 'zod';
import { checkDomainDns, domainNotFound, domainSchema, serializeDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { requireDomain } from './domain-lookup';
import { sendJson } from '../../http/respond';

export const checkDomainDnsRoute = defineRoute({
  method: 'post',
  path: '/v1/domains/:id/check-dns',
  operationId: 'checkDomainDns',
  tag: 'domains',
  summary: "Look up the domain's records now and update its component statuses.",
  description:
    'Bounded: the lookups run concurrently under one 9 s deadline, each query with the DNS_TIMEOUT per try, CNAME chains ' +
    'followed up to 8 hops. A component whose lookup failed temporarily (SERVFAIL, timeout, refused) keeps its status; ' +
    'the others are updated and `last_check.status` is `temporary_failure`. Both DKIM records are checked (`dkim`, RSA, and ' +
    "`dkim_ed25519`); when a pending rotation's records verified (POST /v1/domains/{id}/dkim/rotate), signing switches to its " +
    'keys and the replaced records become `retiring` (GET /v1/domains/{id}/dns). No body is needed.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  example: {},
  body: z.strictObject({}),
  responses: { 200: { description: 'The updated domain.', schema: domainSchema } },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    body();
    const checked = await checkDomainDns(deps.db, deps.dns, deps.config.returnPath, deps.config.encryptionKey, domain, deps.now);
    if (!checked) throw domainNotFound();
    sendJson(res, 200, serializeDomain(checked));
  },
});
