import { isTerminal, type DeliveryStatus } from '../delivery/message-status';
import type { DeliveryCause } from '../delivery/causes';
import { isHardBounce } from '../suppressions/suppression';
import type { ReputationWindow } from './sending-status';

const HOUR_MS = 3_600_000;

/** What a reason or an observation counts (its row in the transitions table names one). */
export type ReputationCounting =
  /** An attempt's outcome (or the local decision standing in for one): a terminal one counts. */
  | 'outcome'
  /** A bounce reported after acceptance: its hard bounce, in the hour of the report. */
  | 'reported_bounce'
  | 'complaint';

/**
 * What one change adds to its account's reputation counts (docs/api-decisions.md,
 * "Reputation"). Only to/cc deliveries count. A delivery counts as terminal when an attempt
 * ended it; deliveries created failed for a suppressed recipient and canceled ones never
 * reached a receiver, and their reasons count nothing. A bounce reported after acceptance
 * adds its hard bounce in the hour of the report; the delivery was counted terminal (and
 * accepted) when it was accepted. Undefined when it adds nothing.
 */
export function reputationCountOf(
  change:
    | { counting: 'outcome' | 'reported_bounce'; kind: 'to' | 'cc' | 'bcc'; to: DeliveryStatus; cause: DeliveryCause | null }
    | { counting: 'complaint'; kind: 'to' | 'cc' | 'bcc' },
): ReputationWindow | undefined {
  if (change.kind === 'bcc') return undefined;
  if (change.counting === 'complaint') return { terminal: 0, accepted: 0, hardBounces: 0, complaints: 1 };
  const hardBounces = Number(isHardBounce({ status: change.to, cause: change.cause }));
  if (change.counting === 'outcome') return isTerminal(change.to) ? { terminal: 1, accepted: Number(change.to === 'accepted'), hardBounces, complaints: 0 } : undefined;
  return hardBounces > 0 ? { terminal: 0, accepted: 0, hardBounces, complaints: 0 } : undefined;
}

/** The hour a count is kept under: the UTC hour `at` falls in. */
export const reputationHour = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

/** The first hour of the window that ends at `now`: the current hour and the 23 before it. */
export const reputationWindowStart = (now: Date): Date => new Date(reputationHour(now).getTime() - 23 * HOUR_MS);
