import { z } from 'zod';
import { recordDnsCheck } from '@mailer/db';
import { observeDomainDns } from '@mailer/dns';
import { evaluateDnsCheck } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { domainNotFound, requireDomain, requireDomainView } from './domain-lookup';
import { serializeDomain } from './domain-representation';
import { domainSchema } from './domain.schema';

export const checkDomainDnsRoute = defineRoute({
  method: 'post',
  path: '/v1/domains/:id/check-dns',
  tag: 'domains',
  summary: "Look up the domain's records now and update its component statuses.",
  description:
    'Bounded: the lookups run concurrently under one 9 s deadline, each query with the DNS_TIMEOUT per try, CNAME chains ' +
    'followed up to 8 hops. A component whose lookup failed temporarily (SERVFAIL, timeout, refused) keeps its status; ' +
    'the others are updated and `last_check.status` is `temporary_failure`. No body is needed.',
  auth: { kind: 'management', scope: 'domains:write' },
  body: z.strictObject({}),
  responses: { 200: { description: 'The updated domain.', schema: domainSchema } },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    body();
    const startedAt = deps.now();
    const observation = await observeDomainDns(deps.dns, domain);
    const outcome = evaluateDnsCheck(observation, domain);
    const recorded = await recordDnsCheck(deps.db, key.accountId, domain.id, { ...outcome, startedAt, completedAt: deps.now() });
    if (!recorded) throw domainNotFound();
    res.json(serializeDomain(await requireDomainView(deps.db, key.accountId, domain.id)));
  },
});
