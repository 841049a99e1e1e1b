import type { Command } from 'commander';
import { liftDestination } from '@mailer/operations';
import { printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

/** `destination lift` (docs/api-decisions.md, "Queue operations"). */
export function registerDestinationCommands(program: Command, deps: CliDependencies): void {
  const destination = program.command('destination').description('act on a destination (an MX host set) as the live daemons hold it');
  destination
    .command('lift')
    .description('lift a suspension: every live daemon holding the destination suspended tries it again within a few seconds')
    .argument('<destination>', 'as `queue destinations` lists it: its id (d_…) or its MX hosts joined by commas')
    .option('--json', 'print {"id","mx_hosts","suspended_until","lifted"}')
    .action(async (named: string, options: { json?: boolean }) => {
      const result = await liftDestination(deps, named, deps.now());
      printResult(
        deps.stdout,
        options.json,
        result,
        result.lifted ? `Lifting the suspension of ${result.mx_hosts.join(',')} (until ${result.suspended_until}).` : `${result.mx_hosts.join(',')} is not suspended.`,
      );
    });
}
