import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireInboundEmail } from '../inbound/inbound-lookup';
import { resendDialect } from './resend-dialect';
import { resendReceivedEmailSchema, toResendReceivedEmail } from './resend-received-email.representation';

export const resendGetReceivedEmailRoute = defineRoute({
  method: 'get',
  path: '/resend/emails/receiving/:id',
  operationId: 'resendGetReceivedEmail',
  tag: 'resend',
  summary: "A received message as Resend's receiving API shows one: GET /v1/inbound/emails/{id}.",
  description: 'A management key with `inbound:read`, as /v1. The HTML is as received (`html_format=cid`); inline images are not turned into data URIs.',
  auth: { kind: 'management', scope: 'inbound:read' },
  dialect: resendDialect,
  query: z.strictObject({
    html_format: z.enum(['cid'], { error: 'only cid: inline images keep their cid: references (data URIs are not made)' }).optional(),
  }),
  errors: ['inbound_email_not_found'],
  responses: { 200: { description: 'The message.', schema: resendReceivedEmailSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, toResendReceivedEmail(await requireInboundEmail(deps.db, key.accountId, params.id!)));
  },
});
