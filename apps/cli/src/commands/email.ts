import type { Command } from 'commander';
import { findEmailForOperator, makeDeferredDeliveriesDue, toOperatorEmail } from '@mailer/operations';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

export function registerEmailCommands(program: Command, deps: CliDependencies): void {
  const email = program.command('email').description('read or act on one message');
  email
    .command('show')
    .description("a message of any account with its deliveries, events and attempts, including what the transport saw (operator-only)")
    .argument('<id>', 'the message id (em_…)')
    .option('--json', 'print the message as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const detail = await findEmailForOperator(deps.db, id);
      if (!detail) throw new CliError('email_not_found', `No message with id ${id}.`);
      const shown = toOperatorEmail(detail);
      const attempts = shown.attempts.map(
        (a) => `  #${a.number} ${a.outcome} ${a.mx_host ?? '-'} ${a.mx_address ?? ''} ${a.reply ? `${a.reply.code ?? ''} ${a.reply.text}` : ''} ${a.tls ? a.tls.version : 'no TLS'}`,
      );
      printResult(deps.stdout, options.json, shown, [`${shown.id} ${shown.status} (account ${shown.account_id})`, ...attempts].join('\n'));
    });
  email
    .command('retry')
    .description("attempt the message's deferred deliveries now instead of at their scheduled retry")
    .argument('<id>', 'the message id (em_…)')
    .option('--json', 'print {"id","retried"}')
    .action(async (id: string, options: { json?: boolean }) => {
      const now = deps.now();
      const made = await makeDeferredDeliveriesDue(deps.db, id, now);
      if (made === undefined) throw new CliError('email_not_found', `No message with id ${id}.`);
      const retried = made.advanced;
      if (retried === 0) throw new CliError('nothing_deferred', `Message ${id} has no deferred delivery to retry.`);
      await (await deps.deliveryQueue()).enqueue({ emailId: id, dueAt: now, accountId: made.accountId }, now);
      printResult(deps.stdout, options.json, { id, retried }, `Queued ${retried} deferred deliver${retried === 1 ? 'y' : 'ies'} of ${id} for now.`);
    });
}
