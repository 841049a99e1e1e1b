import { z } from 'zod';
import { startDkimRotation } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { requireDomain } from './domain-lookup';
import { domainDnsRecords } from './domain-dns-records';
import { domainDnsSchema } from './get-domain-dns.schema';
import { sendJson } from '../../http/respond';

export const rotateDkimKeysRoute = defineRoute({
  method: 'post',
  path: '/v1/domains/:id/dkim/rotate',
  operationId: 'rotateDkimKeys',
  tag: 'domains',
  summary: "Start a rotation of the domain's DKIM keys: new RSA and Ed25519 keys on new selectors.",
  description:
    'The new keys are `pending`: publish their records (listed here and by GET /v1/domains/{id}/dns). Once check-dns (or the ' +
    "daemons' re-check) verifies them, signing switches to them and the replaced records are listed as `retiring` for seven " +
    'days (mail signed with them may still be in flight), then as `retired`: safe to remove. The Ed25519 record is waited for ' +
    'only while the active Ed25519 record is verified. Fires `domain.dkim_rotation_pending`. While a rotation is pending, ' +
    'another request starts nothing and answers 200 with the same records. No body is needed.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  example: {},
  body: z.strictObject({}),
  responses: {
    201: { description: 'Rotation started: the records, the pending ones included.', schema: domainDnsSchema },
    200: { description: 'A rotation was pending already: the records, unchanged.', schema: domainDnsSchema },
  },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    body();
    const started = await startDkimRotation(deps.db, deps.config.encryptionKey, deps.config.returnPath, domain, deps.now());
    sendJson(res, started === 'started' ? 201 : 200, await domainDnsRecords(deps, domain));
  },
});
