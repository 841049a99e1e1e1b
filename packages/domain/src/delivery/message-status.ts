import type { DeliveryCause } from './causes';

/**
 * The six delivery statuses (docs/api-decisions.md, "Delivery", Statuses), written only here:
 * schemas, representations and stores take them from this list, and a check constraint of
 * the database holds the same set (a test compares the two).
 */
export const DELIVERY_STATUSES = ['queued', 'sending', 'deferred', 'accepted', 'bounced', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Terminal statuses are final. Statements that select deliveries by status take these
 * lists as parameters, so the sets are written here only.
 */
export const TERMINAL_STATUSES = ['accepted', 'bounced', 'failed'] as const satisfies readonly DeliveryStatus[];
/** Waiting for an attempt that is due at `next_attempt_at`. */
export const WAITING_STATUSES = ['queued', 'deferred'] as const satisfies readonly DeliveryStatus[];
/** Not yet terminal: what a plan's active-delivery limit counts. */
export const ACTIVE_STATUSES = ['queued', 'sending', 'deferred'] as const satisfies readonly DeliveryStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
/** What one attempt can decide for a delivery (and the attempt's own outcome, derived from them). */
export const ATTEMPT_OUTCOMES = ['accepted', 'deferred', 'bounced', 'failed'] as const satisfies readonly DeliveryStatus[];
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

const TERMINAL: ReadonlySet<DeliveryStatus> = new Set(TERMINAL_STATUSES);

export function isTerminal(status: DeliveryStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * The message status derived from its deliveries (docs/api-decisions.md, "Delivery"): while any is
 * non-terminal, `sending` if any is sending, else `deferred` if any is deferred, else
 * `queued`; once all are terminal, `failed` if any failed, else `bounced` if any bounced,
 * else `accepted`.
 */
export function deriveMessageStatus(statuses: Iterable<DeliveryStatus>): DeliveryStatus {
  const seen = new Set(statuses);
  if ([...seen].some((s) => !isTerminal(s))) {
    if (seen.has('sending')) return 'sending';
    if (seen.has('deferred')) return 'deferred';
    return 'queued';
  }
  if (seen.has('failed')) return 'failed';
  if (seen.has('bounced')) return 'bounced';
  return seen.size === 0 ? 'queued' : 'accepted';
}

export interface DeliveryState {
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  updatedAt: Date;
}

/**
 * The message's cause: that of the most recently updated delivery in the message's own
 * status, so a deferred message explains its latest deferral and a bounced one its bounce
 * (of deliveries updated at the same instant, the first given: writers give them in id order).
 * Queued, sending and accepted messages carry none.
 */
export function deriveMessageCause(deliveries: readonly DeliveryState[], status: DeliveryStatus): DeliveryCause | null {
  if (status === 'queued' || status === 'sending' || status === 'accepted') return null;
  let latest: DeliveryState | undefined;
  for (const d of deliveries) {
    if (d.status === status && d.cause && (!latest || d.updatedAt > latest.updatedAt)) latest = d;
  }
  return latest?.cause ?? null;
}
