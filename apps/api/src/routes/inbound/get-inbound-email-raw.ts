import { findInboundRaw } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { inboundEmailNotFound } from './inbound-lookup';

export const getInboundEmailRawRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/emails/:id/raw',
  operationId: 'getInboundEmailRaw',
  tag: 'inbound',
  summary: 'The message exactly as it arrived (message/rfc822), byte for byte.',
  auth: { kind: 'management', scope: 'inbound:read' },
  errors: ['inbound_email_not_found'],
  responses: { 200: { description: 'The raw MIME message.', contentType: 'message/rfc822' } },
  async handle({ res, deps, key, params }) {
    const raw = await findInboundRaw(deps.db, key.accountId, params.id!);
    if (!raw) throw inboundEmailNotFound();
    res.statusCode = 200;
    res.setHeader('Content-Type', 'message/rfc822');
    res.setHeader('Content-Length', raw.length);
    res.end(raw);
  },
});
