import { updateSender } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { requireSender, senderNotFound } from './lookups';
import { senderSchema } from './sender.schema';
import { serializeSender } from './serialize-sender';
import { updateSenderBodySchema } from './update-sender.schema';
import { sendJson } from '../../http/respond';

export const updateSenderRoute = defineRoute({
  method: 'patch',
  path: '/v1/senders/:id',
  operationId: 'updateSender',
  tag: 'senders',
  summary: "Change a sender's display name and/or transport security policy.",
  description:
    'Values are compared after normalization (a display name after trimming): an update that changes nothing, ' +
    'including an empty body `{}`, answers 200 and leaves `updated_at` as it was.',
  auth: { kind: 'management', scope: 'senders:write' },
  errors: ['sender_not_found'],
  example: { display_name: 'Example Support', transport_security_policy: 'require_tls' },
  body: updateSenderBodySchema,
  responses: { 200: { description: 'The sender as it now is.', schema: senderSchema } },
  async handle({ res, deps, key, params, body }) {
    const sender = await requireSender(deps.db, key, params.id!);
    const input = body();
    const updated = await updateSender(
      deps.db,
      key.accountId,
      sender.id,
      { displayName: input.display_name, transportSecurityPolicy: input.transport_security_policy },
      deps.now(),
    );
    // Deleted between the lookup and the update.
    if (!updated) throw senderNotFound();
    sendJson(res, 200, serializeSender(updated));
  },
});
