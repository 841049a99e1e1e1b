import type { Command } from 'commander';
import { ConfigError, parseEncryptionKey } from '@mailer/config';
import { resealStoredSecrets, UnreadableSecretError } from '@mailer/operations';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

export function registerSecretsCommands(program: Command, deps: CliDependencies): void {
  const secrets = program.command('secrets').description('manage the secrets stored sealed under ENCRYPTION_KEY');

  secrets
    .command('reseal')
    .description('re-seal every stored secret (DKIM private keys) from the key in VAR to the configured ENCRYPTION_KEY, in one transaction')
    .requiredOption('--from-key-env <VAR>', 'the environment variable holding the key they are sealed under now')
    .option('--json', 'print {"resealed","unchanged"}')
    .action(async (options: { fromKeyEnv: string; json?: boolean }) => {
      let fromKey: Buffer;
      try {
        fromKey = parseEncryptionKey(options.fromKeyEnv, deps.env[options.fromKeyEnv]);
      } catch (error) {
        if (error instanceof ConfigError) throw new CliError('invalid_key', error.message);
        throw error;
      }
      let result;
      try {
        result = await resealStoredSecrets(deps.db, fromKey, deps.encryptionKey);
      } catch (error) {
        if (error instanceof UnreadableSecretError) throw new CliError('secret_unreadable', `${error.message}; nothing was re-sealed.`);
        throw error;
      }
      printResult(
        deps.stdout,
        options.json,
        result,
        `Re-sealed ${result.resealed} secrets under ENCRYPTION_KEY; ${result.unchanged} were sealed under it already.`,
      );
    });
}
