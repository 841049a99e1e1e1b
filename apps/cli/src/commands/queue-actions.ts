import type { Command } from 'commander';
import { QUEUE_ACTIONS, type QueueAction } from '@mailer/domain';
import { changeQueue, listQueue, type QueueSelectionInput } from '@mailer/operations';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

const QUEUE_LIST_PAGE = 100;

interface SelectionOptions {
  account?: string;
  domain?: string;
  destination?: string;
  json?: boolean;
}

const ACTION_HELP: Record<QueueAction, { description: string; done: string }> = {
  hold: { description: 'hold waiting deliveries: never attempted until released (their expiry still runs)', done: 'Held' },
  release: { description: 'release held deliveries: due now, their jobs enqueued now', done: 'Released' },
  delete: { description: "delete waiting deliveries: each ends failed with cause canceled_by_operator (its event and webhook sent)", done: 'Deleted' },
  flush: { description: 'attempt deferred deliveries now: due now, their jobs enqueued now', done: 'Flushed' },
};

/** `em_…` or `dlv_…` given as the argument, beside the filters. */
function selectionOf(id: string | undefined, options: SelectionOptions): QueueSelectionInput {
  const byId: QueueSelectionInput = {};
  if (id !== undefined) {
    if (id.startsWith('em_')) byId.emailId = id;
    else if (id.startsWith('dlv_')) byId.deliveryId = id;
    else throw new CliError('validation_error', `${id} is neither a message id (em_…) nor a delivery id (dlv_…).`);
  }
  return {
    ...byId,
    ...(options.account !== undefined ? { accountId: options.account } : {}),
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
    ...(options.destination !== undefined ? { destination: options.destination } : {}),
  };
}

const withFilters = (command: Command) =>
  command
    .option('--account <id>', "only this account's deliveries (acc_…)")
    .option('--domain <domain>', 'only deliveries to this recipient domain')
    .option('--destination <destination>', 'only deliveries to this destination, as `queue destinations` lists it (its id, or its MX hosts joined by commas)');

/** `queue list`, `hold`, `release`, `delete`, `flush` (docs/api-decisions.md, "Queue operations"). */
export function registerQueueActions(queue: Command, deps: CliDependencies): void {
  withFilters(
    queue
      .command('list')
      .description('deferred and held deliveries of every account, oldest id first, with their last attempt (MX host and reply text: operator-only)')
      .option('--status <status>', 'deferred (not held) or held; both when absent')
      .option('--limit <n>', `deliveries per page (1 to 1000)`, String(QUEUE_LIST_PAGE))
      .option('--cursor <cursor>', 'the next_cursor of the previous page'),
  )
    .option('--json', 'print {"deliveries":[{id,email_id,account_id,recipient,kind,recipient_domain,status,held,held_at,attempt_count,next_attempt_at,created_at,cause,last_attempt:{at,mx_host,reply:{code,enhanced_status,text}}}],"next_cursor"}')
    .action(async (options: SelectionOptions & { status?: string; limit: string; cursor?: string }) => {
      if (options.status !== undefined && options.status !== 'deferred' && options.status !== 'held') {
        throw new CliError('validation_error', '--status must be deferred or held.');
      }
      const listed = await listQueue(
        deps.db,
        {
          ...selectionOf(undefined, options),
          ...(options.status !== undefined ? { state: options.status } : {}),
          ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
          limit: Number(options.limit),
        },
        deps.destinationSnapshots,
      );
      const lines = listed.deliveries.map(
        (d) =>
          `${d.id}  ${d.email_id}  ${d.held ? 'held' : d.status}  ${d.recipient}  attempts ${d.attempt_count}  next ${d.next_attempt_at ?? '-'}` +
          (d.last_attempt ? `  ${d.last_attempt.mx_host ?? '-'}: ${d.last_attempt.reply ? `${d.last_attempt.reply.code ?? ''} ${d.last_attempt.reply.text}` : d.cause ?? ''}` : ''),
      );
      if (listed.next_cursor) lines.push(`More: --cursor ${listed.next_cursor}`);
      printResult(deps.stdout, options.json, listed, lines.join('\n') || 'No deferred or held deliveries.');
    });

  for (const action of QUEUE_ACTIONS) {
    const help = ACTION_HELP[action];
    withFilters(queue.command(action).description(help.description).argument('[id]', 'a message (em_…) or one delivery (dlv_…)'))
      .option('--json', 'print {"action","changed","enqueued"}')
      .action(async (id: string | undefined, options: SelectionOptions) => {
        const result = await changeQueue(deps, action, selectionOf(id, options), deps.now());
        printResult(deps.stdout, options.json, result, `${help.done} ${result.changed} deliver${result.changed === 1 ? 'y' : 'ies'}.`);
      });
  }
}
