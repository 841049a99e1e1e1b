import { defineRoute } from '../../http/route';
import { requireSender } from './lookups';
import { senderSchema } from './sender.schema';
import { serializeSender } from './serialize-sender';
import { sendJson } from '../../http/respond';

export const getSenderRoute = defineRoute({
  method: 'get',
  path: '/v1/senders/:id',
  operationId: 'getSender',
  tag: 'senders',
  summary: 'Get a sender.',
  auth: { kind: 'management', scope: 'senders:read' },
  errors: ['sender_not_found'],
  responses: { 200: { description: 'The sender.', schema: senderSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, serializeSender(await requireSender(deps.db, key, params.id!)));
  },
});
