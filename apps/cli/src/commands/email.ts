import type { Command } from 'commander';
import { makeDeferredDeliveriesDue } from '@mailer/db';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

export function registerEmailCommands(program: Command, deps: CliDependencies): void {
  program
    .command('email')
    .description('act on one message')
    .command('retry')
    .description("attempt the message's deferred deliveries now instead of at their scheduled retry")
    .argument('<id>', 'the message id (em_…)')
    .option('--json', 'print {"id","retried"}')
    .action(async (id: string, options: { json?: boolean }) => {
      const now = deps.now();
      const retried = await makeDeferredDeliveriesDue(deps.db, id, now);
      if (retried === undefined) throw new CliError('email_not_found', `No message with id ${id}.`);
      if (retried === 0) throw new CliError('nothing_deferred', `Message ${id} has no deferred delivery to retry.`);
      await (await deps.deliveryQueue()).enqueue(id, now, now);
      printResult(deps.stdout, options.json, { id, retried }, `Queued ${retried} deferred deliver${retried === 1 ? 'y' : 'ies'} of ${id} for now.`);
    });
}
