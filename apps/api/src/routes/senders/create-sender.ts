import { AppError, mailboxBelongsTo, validationError } from '@mailer/domain';
import { createSender } from '@mailer/db';
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
    if (!mailboxBelongsTo(input.email, domain.name)) {
      throw validationError([{ path: 'email', message: `the domain part must be ${domain.name}, the domain of this route` }]);
    }
    const result = await createSender(deps.db, {
      accountId: key.accountId,
      domainId: domain.id,
      email: input.email.address,
      emailKey: input.email.key,
      displayName: input.display_name ?? null,
      transportSecurityPolicy: input.transport_security_policy,
      now: deps.now(),
    });
    if (result.outcome === 'domain_gone') throw new AppError('domain_not_found', 'No domain with this id exists in this account.');
    if (result.outcome === 'already_exists') {
      throw new AppError('sender_already_exists', `An active sender ${input.email.address} already exists under this domain.`, {
        details: [{ path: 'email', message: 'already an active sender of this domain' }],
      });
    }
    res.location(`/v1/senders/${result.sender.id}`);
    sendJson(res, 201, serializeSender(result.sender));
  },
});
