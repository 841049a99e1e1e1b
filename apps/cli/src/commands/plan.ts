import type { Command } from 'commander';
import { setAccountPlan, type PlanSettings } from '@mailer/operations';
import { AppError, parsePlanLimit, PLAN_LIMIT_RULE } from '@mailer/domain';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

const LIMIT_OPTIONS: { flag: string; option: string; field: keyof PlanSettings; help: string; rate?: true }[] = [
  { flag: '--per-minute', option: 'perMinute', field: 'perMinute', help: 'recipient-emails per rolling minute' },
  { flag: '--per-hour', option: 'perHour', field: 'perHour', help: 'recipient-emails per rolling hour' },
  { flag: '--per-day', option: 'perDay', field: 'perDay', help: 'recipient-emails per rolling 24 hours' },
  { flag: '--per-30-days', option: 'per30Days', field: 'per30Days', help: 'recipient-emails per rolling 30 days' },
  { flag: '--max-active', option: 'maxActive', field: 'maxActive', help: 'recipient deliveries queued, sending or deferred at once' },
  { flag: '--max-domains', option: 'maxDomains', field: 'maxDomains', help: 'active (not deleted) domains' },
  { flag: '--max-webhook-endpoints', option: 'maxWebhookEndpoints', field: 'maxWebhookEndpoints', help: 'webhook endpoints (not deleted)' },
  { flag: '--max-templates', option: 'maxTemplates', field: 'maxTemplates', help: 'templates (not deleted)' },
  { flag: '--min-volume', option: 'minVolume', field: 'minVolume', help: 'terminal deliveries in 24 hours below which bounce and complaint rates are not judged' },
  { flag: '--review-bounce-rate', option: 'reviewBounceRate', field: 'reviewBounceRate', help: 'hard-bounce rate (0.05 is 5 %) that puts the account under review', rate: true },
  { flag: '--review-complaint-rate', option: 'reviewComplaintRate', field: 'reviewComplaintRate', help: 'complaint rate that puts the account under review', rate: true },
  { flag: '--pause-bounce-rate', option: 'pauseBounceRate', field: 'pauseBounceRate', help: 'hard-bounce rate that pauses the account', rate: true },
  { flag: '--pause-complaint-rate', option: 'pauseComplaintRate', field: 'pauseComplaintRate', help: 'complaint rate that pauses the account', rate: true },
];

/** A fraction as the plan stores it: six decimals at most (numeric(7, 6)). */
function parseRate(flag: string, raw: string): number {
  const value = /^(0(\.\d{1,6})?|1(\.0{1,6})?)$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(value > 0)) throw new CliError('invalid_limit', `${flag} must be a fraction above 0 and at most 1 with up to 6 decimals (0.05 is 5 %), not "${raw}".`);
  return value;
}

function parseLimit(flag: string, raw: string): number {
  const value = parsePlanLimit(raw);
  if (value === undefined) throw new CliError('invalid_limit', `${flag} ${PLAN_LIMIT_RULE}, not "${raw}".`);
  return value;
}

export function registerPlanCommands(program: Command, deps: CliDependencies): void {
  const plan = program.command('plan').description("manage accounts' sending limits");

  const set = plan
    .command('set')
    .description('give the account a custom plan: the limits given, the others carried over from its current plan')
    .requiredOption('--account <id>', 'the account (acc_…)');
  for (const limit of LIMIT_OPTIONS) set.option(`${limit.flag} <n>`, limit.help);
  set.option('--json', 'print {"id","name","per_minute","per_hour","per_day","per_30_days","max_active","max_domains","max_webhook_endpoints","max_templates","reputation":{…}}').action(
    async (options: Record<string, string | boolean | undefined> & { account: string; json?: boolean }) => {
      const limits: Partial<PlanSettings> = {};
      for (const limit of LIMIT_OPTIONS) {
        const raw = options[limit.option];
        if (typeof raw === 'string') limits[limit.field] = limit.rate ? parseRate(limit.flag, raw) : parseLimit(limit.flag, raw);
      }
      if (Object.keys(limits).length === 0) {
        throw new CliError('no_limits', `Give at least one of ${LIMIT_OPTIONS.map((l) => l.flag).join(', ')}.`);
      }
      const updated = await setAccountPlan(deps.db, options.account, limits).catch((error: unknown) => {
        if (error instanceof AppError) throw new CliError('invalid_limit', error.message);
        throw error;
      });
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
        max_templates: updated.maxTemplates,
        reputation: {
          min_volume: updated.minVolume,
          review_bounce_rate: updated.reviewBounceRate,
          review_complaint_rate: updated.reviewComplaintRate,
          pause_bounce_rate: updated.pauseBounceRate,
          pause_complaint_rate: updated.pauseComplaintRate,
        },
      };
      printResult(
        deps.stdout,
        options.json,
        view,
        [
          `Account ${options.account} is now on custom plan ${view.id}:`,
          `  per minute ${view.per_minute}, per hour ${view.per_hour}, per day ${view.per_day}, per 30 days ${view.per_30_days}`,
          `  at most ${view.max_active} active deliveries, ${view.max_domains} active domains, ${view.max_webhook_endpoints} webhook endpoints and ${view.max_templates} templates`,
          `  from ${view.reputation.min_volume} deliveries a day: under review at ${view.reputation.review_bounce_rate} bounces or ` +
            `${view.reputation.review_complaint_rate} complaints, paused at ${view.reputation.pause_bounce_rate} or ${view.reputation.pause_complaint_rate}`,
        ].join('\n'),
      );
    },
  );
}
