import type { Pool } from 'pg';
import { isDomainReady } from './domains-store';
import { inTransaction, lockMessageDeliveries, messageState, type DeliveryContext, type DeliveryRowState, type Lease } from './delivery-store';

/** A message as a delivery job finds it: what to build and route, and what it now owns. */
export interface Claim {
  context: DeliveryContext;
  lease: Lease;
}

const CLAIM = `
with requested as materialized (
  select e.id as email_id, e.sender_id, (s.configured_state = 'enabled' and s.deleted_at is null) as sender_active
    from emails e join senders s on s.id = e.sender_id
   where e.id = any($1::text[])
), mine as materialized (
  -- By email_id alone, locking what no one else holds: a status condition here lets the
  -- planner AND in the partial indexes over every active delivery, whose size grows with
  -- the queue. Rows locked but not owed are released at commit, a moment later.
  select id, email_id, recipient, recipient_domain, kind, status, attempt_count, created_at, next_attempt_at, lease_expires_at
    from deliveries where email_id in (select email_id from requested)
     for update skip locked
), picked as materialized (
  -- Owed: queued or deferred and due (all of them when the sender is gone), or under an expired lease.
  select m.id, m.email_id, m.recipient, m.recipient_domain, m.kind, m.status, m.attempt_count, m.created_at, r.sender_id
    from mine m join requested r on r.email_id = m.email_id
   where (m.status in ('queued', 'deferred') and (m.next_attempt_at <= $2 or not r.sender_active))
      or (m.status = 'sending' and m.lease_expires_at <= $2)
), sender_locked as materialized (
  select id from senders where id in (select sender_id from picked where status = 'deferred') order by id for no key update
), leased as (
  update deliveries d set status = 'sending', lease_expires_at = $3, updated_at = $2 from picked where d.id = picked.id
), sending_events as (
  insert into events (email_id, type, at, recipient)
  select email_id, 'sending', $2, case when kind = 'bcc' then null else recipient end from picked
), message as (
  update emails set status = 'sending', cause = null, updated_at = $2 where id in (select email_id from picked)
), counters as (
  update senders s set deferred_count = s.deferred_count - c.n
    from (select sender_id, count(*) as n from picked where status = 'deferred' group by sender_id) c
   where s.id = c.sender_id
)
select e.id, e.account_id, e.from_email, e.from_name, e.created_at, e."to", e.cc, e.subject, e.text_body, e.html_body,
       e.message_id_header, e.content_purged_at,
       exists (select 1 from attachments a where a.email_id = e.id) as has_attachments,
       s.id as sender_id, s.email as sender_email, s.transport_security_policy, r.sender_active,
       dm.name as domain_name, dm.dkim_selector, dm.dkim_private_key_sealed, dm.deleted_at as domain_deleted_at,
       dm.ownership_status, dm.dkim_status, dm.dmarc_status,
       coalesce((select json_agg(json_build_object('id', p.id, 'recipient', p.recipient, 'recipientDomain', p.recipient_domain,
                   'kind', p.kind, 'attemptCount', p.attempt_count, 'createdAt', p.created_at))
                   from picked p where p.email_id = e.id), '[]') as leased,
       coalesce((select json_agg(json_build_object('id', d.id, 'status', d.status, 'cause', d.cause, 'updatedAt', d.updated_at,
                   'attemptCount', d.attempt_count))
                   from deliveries d where d.email_id = e.id and d.id not in (select id from picked)), '[]') as others
  from requested r
  join emails e on e.id = r.email_id
  join senders s on s.id = e.sender_id
  join domains dm on dm.id = e.domain_id
 where (select count(*) from sender_locked) >= 0`;

/**
 * For each message: its context (sender, domain, content) and a lease on its deliveries
 * that are owed an attempt — queued or deferred and due (every pending one when the
 * sender was deleted or disabled, so that they all end at once), or `sending` under a
 * lease that expired (its worker died). Rows another transaction holds are skipped. The
 * leased deliveries become `sending` with a `sending` event each; their messages become
 * `sending`; deliveries leaving `deferred` come off their sender's counter. One statement
 * for all the messages; a message that does not exist is left out of the answer.
 */
export async function claimMessages(pool: Pool, emailIds: string[], now: Date, leaseMs: number): Promise<Map<string, Claim>> {
  const expiresAt = new Date(now.getTime() + leaseMs);
  const { rows } = await pool.query({ name: 'claim-messages', text: CLAIM, values: [emailIds, now, expiresAt] });
  return new Map(
    rows.map((r): [string, Claim] => {
      const context: DeliveryContext = {
        email: { id: r.id, accountId: r.account_id, fromEmail: r.from_email, fromName: r.from_name, createdAt: r.created_at },
        sender: { id: r.sender_id, email: r.sender_email, policy: r.transport_security_policy, active: r.sender_active },
        domain: {
          name: r.domain_name,
          dkimSelector: r.dkim_selector,
          dkimPrivateKeySealed: r.dkim_private_key_sealed,
          ready: r.domain_deleted_at === null && isDomainReady({ ownershipStatus: r.ownership_status, dkimStatus: r.dkim_status, dmarcStatus: r.dmarc_status }),
        },
        ...(r.content_purged_at
          ? {}
          : {
              content: {
                to: r.to,
                cc: r.cc,
                subject: r.subject,
                text: r.text_body,
                html: r.html_body,
                messageId: r.message_id_header,
                hasAttachments: r.has_attachments,
              },
            }),
      };
      const lease: Lease = {
        emailId: r.id,
        accountId: r.account_id,
        senderId: r.sender_id,
        expiresAt,
        deliveries: (r.leased as Lease['deliveries']).map((d) => ({ ...d, createdAt: new Date(d.createdAt) })),
        others: (r.others as DeliveryRowState[]).map((d) => ({ ...d, updatedAt: new Date(d.updatedAt), ours: false })),
      };
      return [r.id as string, { context, lease }];
    }),
  );
}

const RELEASE = `
with sender_locked as (
  select 1 from senders where id = $5 for no key update
), released as (
  update deliveries set status = case when attempt_count > 0 then 'deferred' else 'queued' end,
         lease_expires_at = null, next_attempt_at = $3, updated_at = $3
   where id = any($2::text[]) and status = 'sending' and lease_expires_at = $4
  returning status
), counters as (
  update senders set deferred_count = deferred_count + (select count(*) from released where status = 'deferred')
   where id = $5 and exists (select 1 from released where status = 'deferred')
), message as (
  update emails set status = $6, cause = $7, updated_at = $3 where id = $1
)
select (select count(*) from sender_locked) >= 0 as locked`;

/**
 * Gives leased deliveries back without an attempt (shutdown before the message went out):
 * `deferred` again when they had attempts before, else `queued`, due now.
 */
export async function releaseLease(pool: Pool, lease: Lease, deliveryIds: string[], now: Date): Promise<void> {
  if (deliveryIds.length === 0) return;
  await inTransaction(pool, async (client) => {
    const rows = await lockMessageDeliveries(client, lease.emailId, lease.expiresAt);
    const releasing = new Set(deliveryIds);
    const after = rows.map((r) => (r.ours && releasing.has(r.id) ? { ...r, status: r.attemptCount > 0 ? ('deferred' as const) : ('queued' as const) } : r));
    const state = messageState(after);
    await client.query({
      name: 'release-lease',
      text: RELEASE,
      values: [lease.emailId, deliveryIds, now, lease.expiresAt, lease.senderId, state.status, state.cause],
    });
  });
}
