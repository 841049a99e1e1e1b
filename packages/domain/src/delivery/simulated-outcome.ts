import { ACCEPTED, bounced, deferred, failed, type DeliveryOutcome } from './causes';

/** A test message's outcome for one recipient, and whether a complaint follows its acceptance. */
export interface SimulatedOutcome {
  outcome: DeliveryOutcome;
  complained: boolean;
}

/** How soon a simulated deferral is owed its next attempt: every outcome settles within 2 seconds. */
export const SIMULATED_RETRY_MS = 500;

/**
 * What test mode makes of a delivery, by the recipient's local part (docs/api-decisions.md,
 * "Test mode"): `bounce…` bounces (`recipient_unknown`), `defer…` is deferred at its first
 * attempt and accepted at the next, `complain…` is accepted and then complained of,
 * `suppress…` fails (`recipient_suppressed`); anything else is accepted. Letter case does not
 * matter; nothing else of the address does.
 */
export function simulatedOutcome(recipient: string, attemptsBefore: number): SimulatedOutcome {
  const local = recipient.slice(0, recipient.lastIndexOf('@')).toLowerCase();
  if (local.startsWith('bounce')) return { outcome: bounced('recipient_unknown', 550, '5.1.1'), complained: false };
  if (local.startsWith('defer') && attemptsBefore === 0) return { outcome: deferred('greylisted', 451, '4.7.1'), complained: false };
  if (local.startsWith('complain')) return { outcome: ACCEPTED, complained: true };
  if (local.startsWith('suppress')) return { outcome: failed('recipient_suppressed'), complained: false };
  return { outcome: ACCEPTED, complained: false };
}
