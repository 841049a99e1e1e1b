import { AppError, isIdOf, type ErrorDetail } from '@mailer/domain';
import type { QueueSelection } from '@mailer/db';
import { mergeDestinationSnapshots, type DaemonSnapshot, type MergedDestination } from '@mailer/queue';

/** What an operator names to act on the queue with (docs/api-decisions.md, "Queue operations"); every criterion given must hold. */
export interface QueueSelectionInput {
  emailId?: string;
  deliveryId?: string;
  accountId?: string;
  /** A recipient domain. */
  domain?: string;
  /** A destination as `queue destinations` lists it: its id (`d_…`) or its MX host set (`mx1.example,mx2.example`). */
  destination?: string;
}

/** The daemons' destination snapshots (readDestinationSnapshots): the only place a destination's recipient domains are known. */
export type DestinationSnapshots = () => Promise<DaemonSnapshot[]>;

/**
 * A destination as `queue destinations` names it (its id or its MX host set), merged over the
 * live daemons; `destination_not_found` when none routes mail to it.
 */
export async function findDestination(snapshots: DestinationSnapshots, named: string): Promise<MergedDestination> {
  const wanted = named.trim().toLowerCase();
  const found = mergeDestinationSnapshots(await snapshots()).find((d) => d.id === wanted || d.destination === wanted);
  if (!found) throw new AppError('destination_not_found', `No live daemon routes mail to the destination ${named}.`);
  return found;
}

/**
 * The selection's criteria, checked: ids of the right kind, and a destination resolved to the
 * recipient domains the live daemons route to it (`destination_not_found` when none does).
 * Without any criterion it is a `validation_error`: an operation never acts on the whole queue
 * by omission.
 */
export async function resolveQueueSelection(input: QueueSelectionInput, snapshots: DestinationSnapshots, required: boolean): Promise<QueueSelection> {
  const problems: ErrorDetail[] = [];
  if (input.emailId !== undefined && !isIdOf('email', input.emailId)) problems.push({ path: 'email', message: 'not a message id (em_…)' });
  if (input.deliveryId !== undefined && !isIdOf('delivery', input.deliveryId)) problems.push({ path: 'delivery', message: 'not a delivery id (dlv_…)' });
  if (input.accountId !== undefined && !isIdOf('account', input.accountId)) problems.push({ path: 'account', message: 'not an account id (acc_…)' });
  if (input.domain !== undefined && input.domain.trim() === '') problems.push({ path: 'domain', message: 'empty' });
  if (problems.length > 0) throw new AppError('validation_error', `The selection is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, { details: problems });
  const selection: QueueSelection = {
    ...(input.emailId !== undefined ? { emailId: input.emailId } : {}),
    ...(input.deliveryId !== undefined ? { deliveryId: input.deliveryId } : {}),
    ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
  };
  let domains = input.domain !== undefined ? [input.domain.trim().toLowerCase()] : undefined;
  if (input.destination !== undefined) {
    const found = await findDestination(snapshots, input.destination);
    domains = domains ? domains.filter((d) => found.domains.includes(d)) : found.domains;
  }
  if (domains !== undefined) selection.recipientDomains = domains;
  if (required && Object.keys(selection).length === 0) {
    throw new AppError('validation_error', 'Name the deliveries: a message, a delivery, an account, a domain or a destination.', {
      details: [{ path: 'selection', message: 'at least one of email, delivery, account, domain, destination is required' }],
    });
  }
  return selection;
}
