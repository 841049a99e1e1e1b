import type { Command } from 'commander';
import { checkDomainDns, findActiveDomainById, serializeDomain } from '@mailer/operations';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

export function registerDomainCommands(program: Command, deps: CliDependencies): void {
  program
    .command('domain')
    .description('act on one sending domain')
    .command('check')
    .description("look up the domain's ownership, DKIM, DMARC and return-path records now, as POST /v1/domains/{id}/check-dns does")
    .argument('<id>', 'the domain id (dom_…)')
    .option('--json', 'print the domain as the API answers it (GET /v1/domains/{id})')
    .action(async (id: string, options: { json?: boolean }) => {
      const domain = await findActiveDomainById(deps.db, id);
      const checked = domain && (await checkDomainDns(deps.db, deps.dns(), deps.returnPath, deps.encryptionKey, domain, deps.now));
      if (!checked) throw new CliError('domain_not_found', `No active domain with id ${id}.`);
      const view = serializeDomain(checked);
      printResult(
        deps.stdout,
        options.json,
        view,
        `${view.name}: ${view.status} (ownership ${view.ownership.status}, dkim ${view.dkim.status}, dmarc ${view.dmarc.status}, return path ${view.return_path.status}; check ${view.last_check?.status})`,
      );
    });
}
