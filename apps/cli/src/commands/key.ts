import type { Command } from 'commander';
import { accountExists, createManagementKey, listAccountKeys, revokeKey, rotateSendingKey, type Database } from '@mailer/operations';
import { parseScopes, SCOPES } from '@mailer/domain';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

async function requireAccount(db: Database, id: string): Promise<void> {
  if (!(await accountExists(db, id))) throw new CliError('account_not_found', `No account with id ${id}.`);
}

export function registerKeyCommands(program: Command, deps: CliDependencies): void {
  const key = program.command('key').description('manage API keys');

  key
    .command('create')
    .description('create a management key with the given scopes')
    .requiredOption('--account <id>', 'the account (acc_…)')
    .requiredOption('--scopes <list>', `comma-separated, from: ${SCOPES.join(', ')}`)
    .option('--json', 'print {"id","key","scopes"}')
    .action(async (options: { account: string; scopes: string; json?: boolean }) => {
      const scopes = parseScopes(options.scopes);
      if (!scopes) throw new CliError('invalid_scopes', `--scopes must be a comma-separated list of: ${SCOPES.join(', ')}.`);
      await requireAccount(deps.db, options.account);
      const created = await createManagementKey(deps.db, options.account, scopes);
      printResult(
        deps.stdout,
        options.json,
        created,
        [
          `Created management key ${created.id} for ${options.account}.`,
          `Scopes: ${created.scopes.join(', ')}`,
          `Key:    ${created.key}`,
          'Store the key now: it is not shown again.',
        ].join('\n'),
      );
    });

  key
    .command('revoke')
    .description('revoke a key at once')
    .requiredOption('--id <key_id>', 'the key id (key_…)')
    .option('--json', 'print {"id","revoked":true}')
    .action(async (options: { id: string; json?: boolean }) => {
      if (!(await revokeKey(deps.db, options.id))) throw new CliError('key_not_found', `No active key with id ${options.id}.`);
      printResult(deps.stdout, options.json, { id: options.id, revoked: true }, `Revoked key ${options.id}.`);
    });

  key
    .command('rotate-sending')
    .description("issue a new sending key; the account's previous sending key of the same mode stops working at once")
    .requiredOption('--account <id>', 'the account (acc_…)')
    .option('--test', 'replace the test sending key (svc_test_…) instead of the live one')
    .option('--json', 'print {"sending_key"} ({"test_sending_key"} with --test)')
    .action(async (options: { account: string; test?: boolean; json?: boolean }) => {
      await requireAccount(deps.db, options.account);
      const test = options.test === true;
      const sendingKey = await rotateSendingKey(deps.db, options.account, deps.now(), test);
      printResult(
        deps.stdout,
        options.json,
        test ? { test_sending_key: sendingKey } : { sending_key: sendingKey },
        [`New ${test ? 'test ' : ''}sending key for ${options.account}: ${sendingKey}`, 'The previous one no longer works. Store this key now: it is not shown again.'].join('\n'),
      );
    });

  key
    .command('list')
    .description("list the account's keys, revoked ones included (never a key or its hash)")
    .requiredOption('--account <id>', 'the account (acc_…)')
    .option('--json', 'print {"keys":[{"id","kind","test","scopes","created_at","revoked_at"}]}')
    .action(async (options: { account: string; json?: boolean }) => {
      await requireAccount(deps.db, options.account);
      const keys = (await listAccountKeys(deps.db, options.account)).map((k) => ({
        id: k.id,
        kind: k.kind,
        test: k.test,
        scopes: k.scopes,
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt?.toISOString() ?? null,
      }));
      printResult(
        deps.stdout,
        options.json,
        { keys },
        keys
          .map((k) => `${k.id}  ${(k.test ? 'test' : k.kind).padEnd(10)}  ${k.created_at}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  ${k.scopes.join(',')}`)
          .join('\n'),
      );
    });
}
