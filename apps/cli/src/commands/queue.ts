import type { Command } from 'commander';
import { countDeliveriesByStatus, listDestinations } from '@mailer/operations';
import { MESSAGES_PER_JOB } from '@mailer/queue';
import { printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';
import { registerQueueActions } from './queue-actions';

const JOB_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

export function registerQueueCommands(program: Command, deps: CliDependencies): void {
  const queue = program.command('queue').description('inspect the delivery queue and act on it');
  registerQueueActions(queue, deps);
  queue
    .command('destinations')
    .description(
      'destinations (providers, and MX host sets of no provider) with owed deliveries (PostgreSQL), and what the live daemons hold of them: deliveries held, transactions in flight, concurrency now, suspension (their snapshots in Redis, a few seconds old)',
    )
    .option('--json', 'print {"destinations":[{id,provider,mx_hosts,domains,owed,held,in_flight,concurrency,suspended_until,daemons}]}')
    .action(async (options: { json?: boolean }) => {
      const destinations = await listDestinations(deps.db, await deps.destinationSnapshots());
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
