import type { Command } from 'commander';
import {
  accountSendingState,
  createAccount,
  listAccounts,
  pauseSending,
  resumeSending,
  type SendingRepresentation,
  type SendingStatusOutcome,
  setAccountEnabled,
} from '@mailer/operations';
import { EMAIL_TYPES, MAX_ACCOUNT_NAME_LENGTH, MAX_SENDING_REASON_LENGTH, normalizeOneLineText, oneLineTextRule, type EmailType } from '@mailer/domain';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';
import { registerAccountPoolCommand } from './pool';

/** A one-line text option: 1 to `max` characters, no control characters (normalizeOneLineText). */
function lineOption(raw: string, option: string, max: number, code: string): string {
  const text = normalizeOneLineText(raw, max);
  if (text === undefined) throw new CliError(code, `${option} ${oneLineTextRule(max)}`);
  return text;
}

const accountName = (raw: string) => lineOption(raw, '--name', MAX_ACCOUNT_NAME_LENGTH, 'invalid_name');
const sendingReason = (raw: string) => lineOption(raw, '--reason', MAX_SENDING_REASON_LENGTH, 'invalid_reason');

const percent = (rate: number) => `${Number((rate * 100).toFixed(3))} %`;
const sendingLine = (id: string, stream: EmailType, s: SendingRepresentation) =>
  `${id} ${stream}: sending ${s.status} since ${s.since}${s.reason ? ` (${s.reason})` : ''}; bounce rate ${percent(s.bounce_rate)}, complaint rate ${percent(s.complaint_rate)}`;
/** One line per stream shown, in EMAIL_TYPES order. */
const streamLines = (id: string, streams: Partial<Record<EmailType, SendingRepresentation>>, prefix = '') =>
  EMAIL_TYPES.flatMap((stream) => (streams[stream] ? [`${prefix}${sendingLine(id, stream, streams[stream])}`] : [])).join('\n');

/** Streams as GET /v1/account shows them: `{<stream>: {sending}}`. */
const shownStreams = (streams: Partial<Record<EmailType, SendingRepresentation>>) =>
  Object.fromEntries(EMAIL_TYPES.flatMap((stream) => (streams[stream] ? [[stream, { sending: streams[stream] }]] : [])));

/** `--stream`: one stream, else both. */
function streamsOption(raw: string | undefined): readonly EmailType[] {
  if (raw === undefined) return EMAIL_TYPES;
  const stream = EMAIL_TYPES.find((s) => s === raw);
  if (!stream) throw new CliError('invalid_stream', `--stream must be one of: ${EMAIL_TYPES.join(', ')}.`);
  return [stream];
}

export function registerAccountCommands(program: Command, deps: CliDependencies): void {
  const account = program.command('account').description('manage accounts');

  account
    .command('create')
    .description('create an account on the free plan with its live and test sending keys and a management key holding every scope')
    .requiredOption('--name <name>', 'the account name')
    .option('--json', 'print {"account":{"id","name","plan"},"sending_key","test_sending_key","management_key"}')
    .action(async (options: { name: string; json?: boolean }) => {
      const created = await createAccount(deps.db, accountName(options.name));
      printResult(
        deps.stdout,
        options.json,
        created,
        [
          `Created account ${created.account.id} (${created.account.name}) on the ${created.account.plan} plan.`,
          `Sending key:    ${created.sending_key}`,
          `Test key:       ${created.test_sending_key}  (simulated outcomes, nothing delivered)`,
          `Management key: ${created.management_key}  (domains:read, domains:write, senders:read, senders:write)`,
          'Store the keys now: they are not shown again.',
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
  account
    .command('show')
    .description("an account's sending status and its bounce and complaint rates over the last 24 hours")
    .argument('<id>', 'the account id (acc_…)')
    .option('--json', 'print {"id","sending":{"status","reason","since","bounce_rate","complaint_rate"},"streams":{"transactional":{"sending"},"broadcast":{"sending"}}}')
    .action(async (id: string, options: { json?: boolean }) => {
      const streams = await accountSendingState(deps.db, id, deps.now());
      if (!streams) throw new CliError('account_not_found', `No account with id ${id}.`);
      printResult(deps.stdout, options.json, { id, sending: streams.transactional, streams: shownStreams(streams) }, streamLines(id, streams));
    });

  const change = (
    verb: 'pause' | 'resume',
    description: string,
    run: (id: string, reason: string, streams: readonly EmailType[]) => Promise<SendingStatusOutcome | undefined>,
  ) =>
    account
      .command(verb)
      .description(description)
      .argument('<id>', 'the account id (acc_…)')
      .requiredOption('--reason <reason>', 'why, shown with the status and in its webhook event')
      .option('--stream <stream>', `one stream (${EMAIL_TYPES.join(' or ')}); both when absent`)
      .option('--json', 'print {"id","changed","sending":{…},"streams":{…}}')
      .action(async (id: string, options: { reason: string; stream?: string; json?: boolean }) => {
        const outcome = await run(id, sendingReason(options.reason), streamsOption(options.stream));
        if (!outcome) throw new CliError('account_not_found', `No account with id ${id}.`);
        const text = streamLines(id, outcome.streams, outcome.changed ? '' : 'Unchanged: ');
        printResult(deps.stdout, options.json, { id, changed: outcome.changed, sending: outcome.sending, streams: shownStreams(outcome.streams) }, text);
      });
  change('pause', "refuse new mail of the account's streams and hold their owed deliveries unattempted until resumed", (id, reason, streams) =>
    pauseSending(deps.db, id, reason, deps.now(), streams),
  );
  change('resume', "take the streams' mail again: their rates start afresh and their held deliveries are due at once", async (id, reason, streams) =>
    resumeSending(deps.db, await deps.deliveryQueue(), id, reason, deps.now(), streams),
  );

  for (const [verb, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    account
      .command(verb)
      .description(
        enabled
          ? "enable a disabled account: its keys work again"
          : "disable an account: its keys answer 401 unauthorized until it is enabled (its accepted mail is still delivered)",
      )
      .argument('<id>', 'the account id (acc_…)')
      .option('--json', 'print {"id","status","disabled_at","changed"}')
      .action(async (id: string, options: { json?: boolean }) => {
        const result = await setAccountEnabled(deps.db, id, enabled, deps.now());
        printResult(deps.stdout, options.json, result, `Account ${id} is ${result.status}${result.changed ? '' : ' (it already was)'}.`);
      });
  }
}
