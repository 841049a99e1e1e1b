import { inboundEmailSchema, toInboundEmail } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireInboundEmail } from './inbound-lookup';

export const getInboundEmailRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/emails/:id',
  operationId: 'getInboundEmail',
  tag: 'inbound',
  summary: 'A received message: addresses, subject, text, HTML, headers, attachments and authentication results.',
  auth: { kind: 'management', scope: 'inbound:read' },
  errors: ['inbound_email_not_found'],
  responses: { 200: { description: 'The message.', schema: inboundEmailSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, toInboundEmail(await requireInboundEmail(deps.db, key.accountId, params.id!)));
  },
});
