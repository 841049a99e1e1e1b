import { defineRoute } from '../../http/route';
import { deleteOrRefuse } from './domain-lookup';

export const deleteDomainRoute = defineRoute({
  method: 'delete',
  path: '/v1/domains/:id',
  operationId: 'deleteDomain',
  tag: 'domains',
  summary: 'Delete a domain (soft delete).',
  description:
    'Only once all its active senders are deleted (409 domain_has_active_senders before). Afterwards the domain is ' +
    'domain_not_found everywhere; its name and external_id are free again; its email history stays.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found', 'domain_has_active_senders'],
  responses: { 204: { description: 'Deleted.' } },
  async handle({ res, deps, key, params }) {
    await deleteOrRefuse(deps.db, key.accountId, params.id!, deps.now());
    res.status(204).end();
  },
});
