import type { Command } from 'commander';
import { findActiveDomainById } from '@mailer/db';
import { isDomainReady } from '@mailer/domain';
import { checkDomainDns } from '@mailer/operations';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../program';

export function registerDomainCommands(program: Command, deps: CliDependencies): void {
  program
    .command('domain')
    .description('act on one sending domain')
    .command('check')
    .description("look up the domain's ownership, DKIM and DMARC records now, as POST /v1/domains/{id}/check-dns does")
    .argument('<id>', 'the domain id (dom_…)')
    .option('--json', 'print {"id","name","status","ownership","dkim","dmarc","last_check"}')
    .action(async (id: string, options: { json?: boolean }) => {
      const domain = await findActiveDomainById(deps.db, id);
      const checked = domain && (await checkDomainDns(deps.db, deps.dns(), domain, deps.now));
      if (!checked) throw new CliError('domain_not_found', `No active domain with id ${id}.`);
      const result = {
        id: checked.id,
        name: checked.name,
        status: isDomainReady(checked) ? 'ready' : 'not_ready',
        ownership: { status: checked.ownershipStatus },
        dkim: { status: checked.dkimStatus },
        dmarc: { status: checked.dmarcStatus },
        last_check: { status: checked.lastCheckStatus, started_at: checked.lastCheckStartedAt?.toISOString(), completed_at: checked.lastCheckCompletedAt?.toISOString() },
      };
      printResult(
        deps.stdout,
        options.json,
        result,
        `${result.name}: ${result.status} (ownership ${result.ownership.status}, dkim ${result.dkim.status}, dmarc ${result.dmarc.status}; check ${result.last_check.status})`,
      );
    });
}
