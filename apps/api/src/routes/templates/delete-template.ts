import { deleteTemplate } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { requireTemplate, templateNotFound } from './template-lookup';

export const deleteTemplateRoute = defineRoute({
  method: 'delete',
  path: '/v1/templates/:id',
  operationId: 'deleteTemplate',
  tag: 'templates',
  summary: 'Delete a template (by id or alias); its alias is free again.',
  description: 'Afterwards it is template_not_found everywhere and messages can no longer name it; messages already accepted are unchanged.',
  auth: { kind: 'management', scope: 'templates:write' },
  errors: ['template_not_found'],
  responses: { 204: { description: 'Deleted.' } },
  async handle({ res, deps, key, params }) {
    const template = await requireTemplate(deps.db, key.accountId, params.id!);
    if (!(await deleteTemplate(deps.db, key.accountId, template.id, deps.now()))) throw templateNotFound();
    res.status(204).end();
  },
});
