/**
 * A destination's adaptive concurrency and suspension (docs/api-decisions.md, "Scheduling"),
 * after Postfix's destination feedback: additive increase on success, multiplicative
 * decrease on throttling replies and connection failures, and a brief suspension once
 * connections keep failing.
 */
export interface DestinationTuning {
  /** Concurrency of a destination seen for the first time. */
  initial: number;
  /** The most it may grow to (DESTINATION_CONCURRENCY, or the operator's `connections` for the destination). */
  max: number;
  /** Consecutive connection failures that suspend the destination. */
  suspendAfterFailures: number;
  /** How long a suspension lasts (DESTINATION_SUSPENSION). */
  suspendMs: number;
}

export interface DestinationState {
  /** Transactions the destination may have in flight now. */
  concurrency: number;
  /** Successes since the last change of concurrency. */
  successes: number;
  consecutiveFailures: number;
  /** Epoch milliseconds; null when not suspended. */
  suspendedUntil: number | null;
}

/**
 * How one transaction went, as far as the destination is concerned: `success` once a
 * session was up and the destination did not throttle; `throttled` on a 421 or 4.7.x rate
 * reply; `connection_failed` when no session could be set up at any address tried;
 * `neutral` when nothing was learned (routing failed, the attempt was cut short).
 */
export type TransactionFeedback = 'success' | 'throttled' | 'connection_failed' | 'neutral';

export function initialDestinationState(tuning: DestinationTuning): DestinationState {
  return { concurrency: Math.max(1, Math.min(tuning.initial, tuning.max)), successes: 0, consecutiveFailures: 0, suspendedUntil: null };
}

export function isSuspended(state: DestinationState, nowMs: number): boolean {
  return state.suspendedUntil !== null && state.suspendedUntil > nowMs;
}

/**
 * An operator's lift of a suspension (`destination lift`, docs/api-decisions.md, "Queue
 * operations"): the destination is tried again at once, from concurrency 1 with its failure
 * streak forgotten, so that it earns its concurrency back as after any suspension.
 */
export function liftSuspension(state: DestinationState): DestinationState {
  return { ...state, concurrency: 1, successes: 0, consecutiveFailures: 0, suspendedUntil: null };
}

/**
 * The state after one transaction: +1 after `concurrency` successes in a row (so one step per
 * round of transactions), halved (at least 1) on throttling or a connection failure, and
 * suspended at concurrency 1 after `suspendAfterFailures` connection failures in a row; once
 * suspended, the next connection failure suspends it again until a success. A suspension
 * that ran out is lifted by the next feedback.
 */
export function afterTransaction(state: DestinationState, feedback: TransactionFeedback, tuning: DestinationTuning, nowMs: number): DestinationState {
  const current = isSuspended(state, nowMs) ? state : { ...state, suspendedUntil: null };
  const halved = Math.max(1, Math.floor(current.concurrency / 2));
  switch (feedback) {
    case 'success': {
      const successes = current.successes + 1;
      if (successes < current.concurrency) return { ...current, successes, consecutiveFailures: 0 };
      return { ...current, concurrency: Math.min(tuning.max, current.concurrency + 1), successes: 0, consecutiveFailures: 0 };
    }
    case 'throttled':
      return { ...current, concurrency: halved, successes: 0, consecutiveFailures: 0 };
    case 'connection_failed': {
      const consecutiveFailures = current.consecutiveFailures + 1;
      if (consecutiveFailures < tuning.suspendAfterFailures) return { ...current, concurrency: halved, successes: 0, consecutiveFailures };
      // One failure more suspends it again: the first transaction after a suspension is a probe, as Postfix's.
      return { concurrency: 1, successes: 0, consecutiveFailures: tuning.suspendAfterFailures - 1, suspendedUntil: nowMs + tuning.suspendMs };
    }
    case 'neutral':
      return current;
  }
}

/**
 * The feedback of one transaction's report: cut short tells nothing; a rate or policy reply
 * (`rate_limited_by_recipient`) is throttling; a session that was up is a success whatever
 * the replies; no session with a connection failure or timeout is a connection failure.
 */
export function transactionFeedback(report: { connected: boolean; aborted: boolean; causes: readonly (string | undefined)[] }): TransactionFeedback {
  if (report.aborted) return 'neutral';
  if (report.causes.includes('rate_limited_by_recipient')) return 'throttled';
  if (report.connected) return 'success';
  return report.causes.some((c) => c === 'connection_failed' || c === 'timeout') ? 'connection_failed' : 'neutral';
}
