import type { Command } from 'commander';
import { countDeliveriesByStatus } from '@mailer/db';
import { MESSAGES_PER_JOB } from '@mailer/queue';
import { printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

const JOB_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

export function registerQueueCommands(program: Command, deps: CliDependencies): void {
  program
    .command('queue')
    .description('inspect the delivery queue')
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
