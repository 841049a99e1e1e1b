import { AppError } from '@mailer/domain';
import { listQueuedDeliveries, type Database, type QueuedDelivery, type QueueListState } from '@mailer/db';
import { iso } from '../timestamp';
import { resolveQueueSelection, type DestinationSnapshots, type QueueSelectionInput } from './queue-selection';

export const QUEUE_LIST_MAX = 1_000;

export interface QueueListInput extends Pick<QueueSelectionInput, 'accountId' | 'domain' | 'destination'> {
  state?: QueueListState;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  limit: number;
}

/** One queued delivery as an operator sees it (`queue list`, the console): the last reply's text included (contract section 16). */
function toListed(d: QueuedDelivery) {
  return {
    id: d.id,
    email_id: d.emailId,
    account_id: d.accountId,
    recipient: d.recipient,
    kind: d.kind,
    recipient_domain: d.recipientDomain,
    status: d.status,
    held: d.heldAt !== null,
    held_at: iso(d.heldAt),
    attempt_count: d.attemptCount,
    next_attempt_at: d.heldAt === null ? iso(d.nextAttemptAt) : null,
    created_at: iso(d.createdAt),
    cause: d.cause?.code ?? null,
    last_attempt: d.lastAttempt && {
      at: iso(d.lastAttempt.endedAt),
      mx_host: d.lastAttempt.mxHost,
      reply: d.lastAttempt.reply,
    },
  };
}

export type ListedQueueDelivery = ReturnType<typeof toListed>;

/**
 * The mailq of this service (docs/api-decisions.md, "Queue operations"): deferred and held
 * deliveries of every account, or of one account, recipient domain or destination, in pages
 * by keyset (`next_cursor` is the last delivery's id; null on the last page).
 */
export async function listQueue(db: Database, input: QueueListInput, snapshots: DestinationSnapshots) {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > QUEUE_LIST_MAX) {
    throw new AppError('validation_error', `limit must be an integer from 1 to ${QUEUE_LIST_MAX}.`, { details: [{ path: 'limit', message: `1 to ${QUEUE_LIST_MAX}` }] });
  }
  if (input.cursor !== undefined && !/^dlv_[A-Za-z0-9_-]+$/.test(input.cursor)) throw new AppError('invalid_cursor', 'The cursor is not one this listing gave.');
  const selection = await resolveQueueSelection(input, snapshots, false);
  const rows = await listQueuedDeliveries(db, {
    ...(selection.accountId !== undefined ? { accountId: selection.accountId } : {}),
    ...(selection.recipientDomains !== undefined ? { recipientDomains: selection.recipientDomains } : {}),
    ...(input.state !== undefined ? { state: input.state } : {}),
    ...(input.cursor !== undefined ? { afterId: input.cursor } : {}),
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  return { deliveries: page.map(toListed), next_cursor: rows.length > input.limit ? page[page.length - 1]!.id : null };
}
