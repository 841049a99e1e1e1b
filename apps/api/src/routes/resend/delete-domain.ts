import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { deleteOrRefuse } from '../domains/domain-lookup';
import { resendDialect } from './resend-dialect';

export const resendDeleteDomainRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'delete',
  path: '/resend/domains/:id',
  operationId: 'resendDeleteDomain',
  summary: 'DELETE /v1/domains/{id} in Resend\'s terms: only once its senders are deleted.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found', 'domain_has_active_senders'],
  responses: { 200: { description: 'Deleted.', schema: z.object({ object: z.literal('domain'), id: z.string(), deleted: z.literal(true) }).meta({ id: 'ResendDeletedDomain' }) } },
  async handle({ res, deps, key, params }) {
    await deleteOrRefuse(deps.db, key.accountId, params.id!, deps.now());
    sendJson(res, 200, { object: 'domain', id: params.id!, deleted: true });
  },
});
