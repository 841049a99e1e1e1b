import { Command, CommanderError } from 'commander';
import { databaseUrlProblem } from '@mailer/config';
import { isDatabaseUnavailable } from '@mailer/operations';
import { AppError } from '@mailer/domain';
import type { CliDependencies } from './cli-dependencies';
import { registerAccountCommands } from './commands/account';
import { registerDestinationCommands } from './commands/destination';
import { registerDomainCommands } from './commands/domain';
import { registerEmailCommands } from './commands/email';
import { registerKeyCommands } from './commands/key';
import { registerPlanCommands } from './commands/plan';
import { registerPoolCommands } from './commands/pool';
import { registerQueueCommands } from './commands/queue';
import { registerSecretsCommands } from './commands/secrets';
import { registerWebhookCommands } from './commands/webhook';
import { CliError, printError } from './output';

/** A command group adds its subcommands (`account create`, …) to the program. */
export type CommandGroup = (program: Command, deps: CliDependencies) => void;

const COMMAND_GROUPS: CommandGroup[] = [
  registerAccountCommands,
  registerKeyCommands,
  registerPlanCommands,
  registerQueueCommands,
  registerDestinationCommands,
  registerEmailCommands,
  registerDomainCommands,
  registerSecretsCommands,
  registerPoolCommands,
  registerWebhookCommands,
];

/** Failures that are not the command's: the database is unreachable, missing or not migrated. */
function databaseFailure(error: unknown): { code: string; message: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  // PostgreSQL's "undefined table": the database exists but has not been migrated.
  if (code === '42P01') return { code: 'database_not_migrated', message: 'The database is not migrated; run npm run migrate first.' };
  const misnamed = databaseUrlProblem(error);
  if (misnamed) return { code: 'database_unavailable', message: misnamed.message };
  if (isDatabaseUnavailable(error)) return { code: 'database_unavailable', message: `The database is not reachable: ${message}` };
  return undefined;
}

export function buildProgram(deps: CliDependencies, json: boolean): Command {
  const program = new Command('mailer')
    .description('Operator commands. They expect a migrated database (npm run migrate); they never migrate it.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void deps.stdout.write(text),
      writeErr: (text) => void deps.stderr.write(text),
      // Usage errors (a missing option, an unknown command) in the same shape as every other error.
      outputError: (text, write) => {
        if (!json) return write(text);
        write(`${JSON.stringify({ error: { code: 'usage_error', message: text.trim().replace(/^error: /, '') } })}\n`);
      },
    });
  for (const register of COMMAND_GROUPS) register(program, deps);
  return program;
}

/** Runs one command line (without `node main.js`) and returns the process exit status. */
export async function runCli(argv: string[], deps: CliDependencies): Promise<number> {
  const json = argv.includes('--json');
  try {
    await buildProgram(deps, json).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its usage error or the help.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || error instanceof AppError) {
      printError(deps.stderr, json, error);
    } else {
      printError(deps.stderr, json, databaseFailure(error) ?? { code: 'internal_error', message: (error as Error)?.message || String(error) });
    }
    return 1;
  }
}
