import { renderTemplateContent } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireTemplate } from './template-lookup';
import { renderedTemplateSchema, renderTemplateBodySchema } from './template.schema';

export const renderTemplateRoute = defineRoute({
  method: 'post',
  path: '/v1/templates/:id/render',
  operationId: 'renderTemplate',
  tag: 'templates',
  summary: 'Preview a template (by id or alias) rendered with variables; nothing is sent.',
  description:
    'Renders exactly as a message naming the template would be rendered at intake: `{{name}}` HTML-escaped in the html part only, the ' +
    'plain part generated from the HTML when the template has no text. A name the template uses and the variables lack is ' +
    '422 template_variable_missing naming it.',
  auth: { kind: 'management', scope: 'templates:read' },
  errors: ['template_not_found', 'template_variable_missing'],
  example: { variables: { name: 'Ann', order: { number: '1042' }, items: [{ title: 'Tea', price: '4.00' }] } },
  body: renderTemplateBodySchema,
  responses: { 200: { description: 'The rendered subject, html and text.', schema: renderedTemplateSchema } },
  async handle({ res, deps, key, params, body }) {
    const template = await requireTemplate(deps.db, key.accountId, params.id!);
    sendJson(res, 200, renderTemplateContent(template, body().variables, 'variables'));
  },
});
