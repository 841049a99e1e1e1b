import type { Command } from 'commander';
import { createAccount, listAccounts } from '@mailer/db';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';
import { registerAccountPoolCommand } from './pool';

const MAX_NAME_LENGTH = 200;

function accountName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || [...name].length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) {
    throw new CliError('invalid_name', `--name must be 1 to ${MAX_NAME_LENGTH} characters without control characters`);
  }
  return name;
}

export function registerAccountCommands(program: Command, deps: CliDependencies): void {
  const account = program.command('account').description('manage accounts');

  account
    .command('create')
    .description('create an account on the free plan with its sending key and a management key holding every scope')
    .requiredOption('--name <name>', 'the account name')
    .option('--json', 'print {"account":{"id","name","plan"},"sending_key","management_key"}')
    .action(async (options: { name: string; json?: boolean }) => {
      const created = await createAccount(deps.db, accountName(options.name));
      printResult(
        deps.stdout,
        options.json,
        created,
        [
          `Created account ${created.account.id} (${created.account.name}) on the ${created.account.plan} plan.`,
          `Sending key:    ${created.sending_key}`,
          `Management key: ${created.management_key}  (domains:read, domains:write, senders:read, senders:write)`,
          'Store both keys now: they are not shown again.',
        ].join('\n'),
      );
    });

  account
    .command('list')
    .description('list every account, oldest first')
    .option('--json', 'print {"accounts":[{"id","name","plan","plan_id","created_at"}]}')
    .action(async (options: { json?: boolean }) => {
      const accounts = (await listAccounts(deps.db)).map((a) => ({
        id: a.id,
        name: a.name,
        plan: a.plan,
        plan_id: a.planId,
        created_at: a.createdAt.toISOString(),
      }));
      printResult(
        deps.stdout,
        options.json,
        { accounts },
        accounts.length === 0
          ? 'No accounts.'
          : accounts.map((a) => `${a.id}  ${a.created_at}  ${a.plan === 'custom' ? a.plan_id : a.plan}  ${a.name}`).join('\n'),
      );
    });

  registerAccountPoolCommand(account, deps);
}
