import { deleteSender } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { senderNotFound } from './lookups';

export const deleteSenderRoute = defineRoute({
  method: 'delete',
  path: '/v1/senders/:id',
  operationId: 'deleteSender',
  tag: 'senders',
  summary: 'Disable and soft-delete a sender.',
  description:
    'Afterwards the sender is sender_not_found on every route, its address is free to be created again, and its ' +
    'retained email history stays. Pending deliveries of its messages end `failed` with cause `sender_disabled`.',
  auth: { kind: 'management', scope: 'senders:write' },
  errors: ['sender_not_found'],
  responses: { 204: { description: 'Deleted.' } },
  async handle({ res, deps, key, params }) {
    if (!(await deleteSender(deps.db, key.accountId, params.id!, deps.now()))) throw senderNotFound();
    res.status(204).end();
  },
});
