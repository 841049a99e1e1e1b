import { owedDeliveriesByRecipientDomain, type Queryable } from '@mailer/db';
import { mergeDestinationSnapshots, type DaemonSnapshot } from '@mailer/queue';

/** Recipient domains whose owed deliveries are counted for the listing, most owed first. */
const OWED_DOMAINS = 1_000;

/**
 * One destination as operators see it; `id` is null for owed domains no live daemon has routed. A
 * provider's domains are one destination, `provider` naming it (docs/api-decisions.md, "Providers
 * and egress pools").
 */
export interface ListedDestination {
  id: string | null;
  provider: string | null;
  mx_hosts: string[];
  domains: string[];
  owed: number;
  held: number;
  in_flight: number;
  concurrency: number;
  suspended_until: string | null;
  daemons: number;
}

/**
 * Destinations (providers, and MX host sets of no provider) with owed deliveries (PostgreSQL) and what the live daemons hold of them
 * (their snapshots in Redis, a few seconds old), most owed first: `queue destinations` and
 * the console's destinations page.
 */
export async function listDestinations(db: Queryable, snapshots: readonly DaemonSnapshot[]): Promise<ListedDestination[]> {
  const owedByDomain = await owedDeliveriesByRecipientDomain(db, OWED_DOMAINS);
  const unrouted = new Map(owedByDomain);
  const destinations = mergeDestinationSnapshots(snapshots).map((d): ListedDestination => {
    for (const domain of d.domains) unrouted.delete(domain);
    return {
      id: d.id,
      provider: d.provider,
      mx_hosts: d.mxHosts,
      domains: d.domains,
      owed: d.domains.reduce((sum, domain) => sum + (owedByDomain.get(domain) ?? 0), 0),
      held: d.held,
      in_flight: d.inFlight,
      concurrency: d.concurrency,
      suspended_until: d.suspendedUntil,
      daemons: d.daemons,
    };
  });
  // Owed to domains no live daemon has routed yet (not due, or no daemon running): their destination is not known.
  for (const [domain, owed] of unrouted) {
    destinations.push({ id: null, provider: null, mx_hosts: [], domains: [domain], owed, held: 0, in_flight: 0, concurrency: 0, suspended_until: null, daemons: 0 });
  }
  return destinations.sort((a, b) => b.owed - a.owed || b.held - a.held);
}
