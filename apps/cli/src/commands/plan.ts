import type { Command } from 'commander';
import { setAccountPlan, type PlanSettings } from '@mailer/db';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

/** PostgreSQL `integer`, the column type of every setting. */
const MAX_LIMIT = 2_147_483_647;

const LIMIT_OPTIONS: { flag: string; option: string; field: keyof PlanSettings; help: string }[] = [
  { flag: '--per-minute', option: 'perMinute', field: 'perMinute', help: 'recipient-emails per rolling minute' },
  { flag: '--per-hour', option: 'perHour', field: 'perHour', help: 'recipient-emails per rolling hour' },
  { flag: '--per-day', option: 'perDay', field: 'perDay', help: 'recipient-emails per rolling 24 hours' },
  { flag: '--per-30-days', option: 'per30Days', field: 'per30Days', help: 'recipient-emails per rolling 30 days' },
  { flag: '--max-active', option: 'maxActive', field: 'maxActive', help: 'recipient deliveries queued, sending or deferred at once' },
  { flag: '--max-domains', option: 'maxDomains', field: 'maxDomains', help: 'active (not deleted) domains' },
  { flag: '--max-webhook-endpoints', option: 'maxWebhookEndpoints', field: 'maxWebhookEndpoints', help: 'webhook endpoints (not deleted)' },
];

function parseLimit(flag: string, raw: string): number {
  const value = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value > MAX_LIMIT) {
    throw new CliError('invalid_limit', `${flag} must be a whole number from 0 to ${MAX_LIMIT}, not "${raw}".`);
  }
  return value;
}

export function registerPlanCommands(program: Command, deps: CliDependencies): void {
  const plan = program.command('plan').description("manage accounts' sending limits");

  const set = plan
    .command('set')
    .description('give the account a custom plan: the limits given, the others carried over from its current plan')
    .requiredOption('--account <id>', 'the account (acc_…)');
  for (const limit of LIMIT_OPTIONS) set.option(`${limit.flag} <n>`, limit.help);
  set.option('--json', 'print {"id","name","per_minute","per_hour","per_day","per_30_days","max_active","max_domains","max_webhook_endpoints"}').action(
    async (options: Record<string, string | boolean | undefined> & { account: string; json?: boolean }) => {
      const limits: Partial<PlanSettings> = {};
      for (const limit of LIMIT_OPTIONS) {
        const raw = options[limit.option];
        if (typeof raw === 'string') limits[limit.field] = parseLimit(limit.flag, raw);
      }
      if (Object.keys(limits).length === 0) {
        throw new CliError('no_limits', `Give at least one of ${LIMIT_OPTIONS.map((l) => l.flag).join(', ')}.`);
      }
      const updated = await setAccountPlan(deps.db, options.account, limits);
      if (!updated) throw new CliError('account_not_found', `No account with id ${options.account}.`);
      const view = {
        id: updated.id,
        name: updated.name,
        per_minute: updated.perMinute,
        per_hour: updated.perHour,
        per_day: updated.perDay,
        per_30_days: updated.per30Days,
        max_active: updated.maxActive,
        max_domains: updated.maxDomains,
        max_webhook_endpoints: updated.maxWebhookEndpoints,
      };
      printResult(
        deps.stdout,
        options.json,
        view,
        [
          `Account ${options.account} is now on custom plan ${view.id}:`,
          `  per minute ${view.per_minute}, per hour ${view.per_hour}, per day ${view.per_day}, per 30 days ${view.per_30_days}`,
          `  at most ${view.max_active} active deliveries, ${view.max_domains} active domains and ${view.max_webhook_endpoints} webhook endpoints`,
        ].join('\n'),
      );
    },
  );
}
