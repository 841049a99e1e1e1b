import type { Command } from 'commander';
import { countDeliveriesByStatus, owedDeliveriesByRecipientDomain } from '@mailer/db';
import { mergeDestinationSnapshots, MESSAGES_PER_JOB } from '@mailer/queue';
import { printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

const JOB_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

/** Recipient domains whose owed deliveries are counted for the listing, most owed first. */
const OWED_DOMAINS = 1_000;

/**
 * One line of `queue destinations --json`; `id` is null for owed domains no live daemon has
 * routed. A provider's domains are one line, `provider` naming it (docs/api-decisions.md,
 * "Providers and egress pools").
 */
interface ListedDestination {
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

export function registerQueueCommands(program: Command, deps: CliDependencies): void {
  const queue = program.command('queue').description('inspect the delivery queue');
  queue
    .command('destinations')
    .description(
      'destinations (providers, and MX host sets of no provider) with owed deliveries (PostgreSQL), and what the live daemons hold of them: deliveries held, transactions in flight, concurrency now, suspension (their snapshots in Redis, a few seconds old)',
    )
    .option('--json', 'print {"destinations":[{id,provider,mx_hosts,domains,owed,held,in_flight,concurrency,suspended_until,daemons}]}')
    .action(async (options: { json?: boolean }) => {
      const [owedByDomain, snapshots] = await Promise.all([owedDeliveriesByRecipientDomain(deps.db, OWED_DOMAINS), deps.destinationSnapshots()]);
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
      destinations.sort((a, b) => b.owed - a.owed || b.held - a.held);
      const lines = destinations.map(
        (d) =>
          `${d.provider ? `provider ${d.provider}` : d.mx_hosts.join(',') || '(not routed)'}  domains ${d.domains.join(',')}  owed ${d.owed}  held ${d.held}  in flight ${d.in_flight}  concurrency ${d.concurrency}` +
          (d.suspended_until ? `  suspended until ${d.suspended_until}` : ''),
      );
      printResult(deps.stdout, options.json, { destinations }, lines.join('\n') || 'No destinations.');
    });
  queue
    .command('stats')
    .description(`recipient deliveries by status (PostgreSQL, the source of truth) and delivery jobs by state (Redis; a job carries one message, or up to ${MESSAGES_PER_JOB} accepted together)`)
    .option('--json', 'print {"deliveries":{status:count},"jobs":{state:count}}')
    .action(async (options: { json?: boolean }) => {
      const deliveries = await countDeliveriesByStatus(deps.db);
      const jobs = await (await deps.deliveryQueue()).queue.getJobCounts(...JOB_STATES);
      const lines = [
        'Deliveries: ' + Object.entries(deliveries).map(([status, n]) => `${status} ${n}`).join(', '),
        'Jobs:       ' + JOB_STATES.map((state) => `${state} ${jobs[state] ?? 0}`).join(', '),
      ];
      printResult(deps.stdout, options.json, { deliveries, jobs }, lines.join('\n'));
    });
}
