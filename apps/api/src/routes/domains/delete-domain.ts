import { AppError } from '@mailer/domain';
import { deleteDomain } from '@mailer/db';
import { defineRoute } from '../../http/route';
import { domainNotFound } from './domain-lookup';

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
    const result = await deleteDomain(deps.db, key.accountId, params.id!, deps.now());
    if (result === 'not_found') throw domainNotFound();
    if (result === 'has_active_senders') {
      throw new AppError('domain_has_active_senders', 'Delete the domain\'s active senders first.');
    }
    res.status(204).end();
  },
});
