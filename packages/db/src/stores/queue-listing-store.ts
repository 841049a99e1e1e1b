import { WAITING_STATUSES, type DeliveryCause, type DeliveryStatus } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import { statusLiteral, statusSetLiteral } from '../deliveries/status-literals';

/** Which deliveries `queue list` shows: deferred ones and held ones (queued or deferred), or one of the two. */
export type QueueListState = 'deferred' | 'held';

export interface QueueListQuery {
  accountId?: string;
  /** Recipient domains (a destination's, resolved by the caller). */
  recipientDomains?: readonly string[];
  /** Both when absent. */
  state?: QueueListState;
  /** The last delivery id of the previous page (keyset, in id order). */
  afterId?: string;
  limit: number;
}

/** One line of the operator's queue listing: operator-only, the last reply's text included. */
export interface QueuedDelivery {
  id: string;
  emailId: string;
  accountId: string;
  recipient: string;
  recipientDomain: string;
  kind: 'to' | 'cc' | 'bcc';
  status: DeliveryStatus;
  heldAt: Date | null;
  attemptCount: number;
  nextAttemptAt: Date;
  createdAt: Date;
  cause: DeliveryCause | null;
  /** The latest attempt that carried this recipient: where it went and what came back. */
  lastAttempt: { endedAt: Date; mxHost: string | null; reply: { code: number | null; enhanced_status: string | null; text: string } | null } | null;
}

const toQueued = (r: Row): QueuedDelivery => ({
  id: r.id,
  emailId: r.email_id,
  accountId: r.account_id,
  recipient: r.recipient,
  recipientDomain: r.recipient_domain,
  kind: r.kind,
  status: r.status,
  heldAt: r.held_at,
  attemptCount: r.attempt_count,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  cause: r.cause,
  lastAttempt: r.last_ended_at === null ? null : { endedAt: r.last_ended_at, mxHost: r.last_mx_host, reply: r.last_reply },
});

/**
 * Deferred and held deliveries across accounts, in id order from `afterId` (keyset: rows
 * added meanwhile never repeat a page). Each with the latest attempt of its message that
 * carried it: attempts name to/cc recipients and only count BCC ones, so a BCC delivery's is
 * the latest of its message that carried BCC recipients.
 */
export async function listQueuedDeliveries(db: Queryable, query: QueueListQuery): Promise<QueuedDelivery[]> {
  const { accountId, recipientDomains, state, afterId } = query;
  const which =
    state === 'held'
      ? db`d.held_at is not null and d.status in ${statusSetLiteral(db, WAITING_STATUSES)}`
      : state === 'deferred'
        ? db`d.status = ${statusLiteral(db, 'deferred')} and d.held_at is null`
        : db`(d.status = ${statusLiteral(db, 'deferred')} or (d.held_at is not null and d.status = ${statusLiteral(db, 'queued')}))`;
  const rows = await db`
    select d.id, d.email_id, d.account_id, d.recipient, d.recipient_domain, d.kind, d.status, d.held_at, d.attempt_count,
           d.next_attempt_at, d.created_at, d.cause, a.ended_at as last_ended_at, a.mx_host as last_mx_host, a.reply as last_reply
      from deliveries d
      left join lateral (
        select a.ended_at, a.mx_host, a.reply from attempts a
         where a.email_id = d.email_id and (case when d.kind = 'bcc' then a.bcc_recipients > 0 else a.recipients ? d.recipient end)
         order by a.number desc limit 1) a on true
     where ${which} and d.id > ${afterId ?? ''}
       ${accountId !== undefined ? db`and d.account_id = ${accountId}` : db``}
       ${recipientDomains !== undefined ? db`and d.recipient_domain = any(${[...recipientDomains]}::text[])` : db``}
     order by d.id limit ${query.limit}`;
  return rows.map(toQueued);
}
