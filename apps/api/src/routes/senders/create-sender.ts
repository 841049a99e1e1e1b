import { addSender } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { createSenderBodySchema } from './create-sender.schema';
import { requireDomain } from '../domains/domain-lookup';
import { senderSchema } from './sender.schema';
import { serializeSender } from './serialize-sender';
import { sendJson } from '../../http/respond';

export const createSenderRoute = defineRoute({
  method: 'post',
  path: '/v1/domains/:id/senders',
  operationId: 'createSender',
  tag: 'senders',
  summary: 'Create a sender identity under the domain.',
  description:
    'The domain need not be ready: the sender is created with effective_state `domain_not_ready` until it is. ' +
    'An active sender with the same address (compared case-insensitively) under the domain is a 409 sender_already_exists.',
  auth: { kind: 'management', scope: 'senders:write' },
  errors: ['domain_not_found', 'sender_already_exists'],
  example: { email: 'hello@example.com', display_name: 'Example', transport_security_policy: 'opportunistic' },
  body: createSenderBodySchema,
  responses: { 201: { description: 'Created.', schema: senderSchema, headers: ['Location'] } },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    const input = body();
    const sender = await addSender(deps.db, domain, { email: input.email, displayName: input.display_name ?? null, transportSecurityPolicy: input.transport_security_policy }, deps.now());
    res.location(`/v1/senders/${sender.id}`);
    sendJson(res, 201, serializeSender(sender));
  },
});
