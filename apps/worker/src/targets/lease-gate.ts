import type { LeasedDelivery } from '@mailer/operations';
import type { HeldMessage } from './delivery-target';

/**
 * The check right before a transaction (docs/api-decisions.md, "Delivery": PostgreSQL decides
 * what goes out): of `group`, the deliveries still leased to `message`, the only ones the
 * transaction may carry. A delivery recorded, released or taken over meanwhile (a job
 * replayed, a lease that lapsed) is dropped without a record: it is no longer this daemon's.
 *
 * Answers none when nothing may go out, and the group is then settled already (tracked on
 * the message): released, unattempted, when the lease could not be checked (the database
 * away); with nothing to record when no delivery is still leased. Otherwise the caller
 * settles the group with the transaction's record or release. Never rejects.
 */
export async function leaseGate(
  message: Pick<HeldMessage, 'deps' | 'lease' | 'log' | 'recorder' | 'track'>,
  group: LeasedDelivery[],
): Promise<LeasedDelivery[]> {
  let held: string[];
  try {
    held = await message.deps.leaseChecks.submit({ token: message.lease.token, deliveryIds: group.map((d) => d.id) });
  } catch (error) {
    message.log.error('lease not checked', { error: (error as Error).message });
    await message.track(message.recorder.release(group, 'lease not checked'));
    return [];
  }
  const sending = group.filter((d) => held.includes(d.id));
  if (sending.length < group.length) message.log.warn('lease lost before the transaction', { recipients: group.length - sending.length });
  if (sending.length === 0) await message.track(Promise.resolve());
  return sending;
}
