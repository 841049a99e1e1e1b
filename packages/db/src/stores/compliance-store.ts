import { DEFAULT_POOL, type MxHostTlsCount } from '@mailer/domain';
import type { Queryable } from '../database';

/**
 * The local addresses the account's mail leaves from: its pool's, or the `default` pool's for an
 * account without one (egressAddressesOf); empty when neither has any (the machine's own address).
 */
export async function accountEgressAddresses(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db`
    select host(e.address) as address
      from accounts a join egress_addresses e on e.pool_name = coalesce(a.egress_pool, ${DEFAULT_POOL})
     where a.id = ${accountId}
     order by e.address`;
  return rows.map((r) => r.address as string);
}

/**
 * The domain's accepted attempts that started at or after `since`, per MX host and TLS. An attempt
 * belongs to a message created at most `maxDeliveryAgeMs` before it (a delivery expires then), so
 * the account's messages are read through their (account, created_at) index from that far back,
 * and their attempts through attempts_email_idx.
 */
export async function acceptedAttemptsTls(
  db: Queryable,
  domain: { accountId: string; id: string },
  since: Date,
  maxDeliveryAgeMs: number,
): Promise<MxHostTlsCount[]> {
  // An array of ids rather than a join: joined, the planner may scan attempts, which has no index by time.
  const rows = await db`
    select a.mx_host, a.tls, count(*)::int as attempts
      from attempts a
     where a.email_id = any(array(
             select e.id from emails e
              where e.account_id = ${domain.accountId} and e.domain_id = ${domain.id}
                and e.created_at >= ${new Date(since.getTime() - maxDeliveryAgeMs)}))
       and a.started_at >= ${since} and a.outcome = 'accepted' and a.mx_host is not null
     group by a.mx_host, a.tls
     order by a.mx_host, a.tls`;
  return rows.map((r) => ({ mxHost: r.mx_host as string, tls: r.tls as boolean, attempts: r.attempts as number }));
}
