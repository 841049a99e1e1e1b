/**
 * An account's sending status (docs/api-decisions.md, "Reputation"): `under_review` is only
 * reported; `paused` refuses new mail and holds the account's owed deliveries until an
 * operator resumes it.
 */
export const SENDING_STATUSES = ['enabled', 'under_review', 'paused'] as const;
export type SendingStatus = (typeof SENDING_STATUSES)[number];

/** A plan's reputation settings; rates are fractions (0.05 is 5 %). */
export interface ReputationThresholds {
  /** Terminal deliveries in the window below which no rate is judged. */
  minVolume: number;
  reviewBounceRate: number;
  reviewComplaintRate: number;
  pauseBounceRate: number;
  pauseComplaintRate: number;
}

/** The settings a plan has unless an operator sets others (section 19 of the contract). */
export const DEFAULT_REPUTATION_THRESHOLDS: Readonly<ReputationThresholds> = Object.freeze({
  minVolume: 200,
  reviewBounceRate: 0.05,
  reviewComplaintRate: 0.001,
  pauseBounceRate: 0.1,
  pauseComplaintRate: 0.005,
});

/**
 * What is wrong with a plan's thresholds, or undefined: rates are fractions above 0 and at most
 * 1, a review threshold is at most its pause threshold (otherwise an account would be paused
 * without being reviewed first), the volume at least 1.
 */
export function reputationThresholdsProblem(t: ReputationThresholds): string | undefined {
  if (!Number.isSafeInteger(t.minVolume) || t.minVolume < 1) return 'the minimum volume must be a whole number of at least 1';
  const rates = [t.reviewBounceRate, t.pauseBounceRate, t.reviewComplaintRate, t.pauseComplaintRate];
  if (rates.some((r) => !(r > 0 && r <= 1))) return 'every rate must be above 0 and at most 1';
  if (t.reviewBounceRate > t.pauseBounceRate) return 'the review bounce rate must not exceed the pause bounce rate';
  if (t.reviewComplaintRate > t.pauseComplaintRate) return 'the review complaint rate must not exceed the pause complaint rate';
  return undefined;
}

/** An account's counts over its reputation window (see reputationCountOf). */
export interface ReputationWindow {
  /** To/cc deliveries that ended after an attempt. */
  terminal: number;
  /** Those of them accepted: what complaints are a rate of. */
  accepted: number;
  hardBounces: number;
  complaints: number;
}

export interface ReputationRates {
  /** Hard bounces over terminal deliveries; 0 without any. */
  bounceRate: number;
  /** Complaints over accepted deliveries; 0 without any. */
  complaintRate: number;
}

export function reputationRates(window: ReputationWindow): ReputationRates {
  return {
    bounceRate: window.terminal > 0 ? window.hardBounces / window.terminal : 0,
    complaintRate: window.accepted > 0 ? window.complaints / window.accepted : 0,
  };
}

/** A status with the reason an operator or the evaluation gave; null reason for `enabled` by evaluation. */
export interface SendingVerdict {
  status: SendingStatus;
  reason: string | null;
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(2))} %`;

/**
 * What the window says of an account, whatever its status now: `paused` at a pause threshold,
 * `under_review` at a review threshold, otherwise (or below the minimum volume) `enabled`.
 * Bounces are judged before complaints, pausing before reviewing.
 */
export function judgeReputation(window: ReputationWindow, thresholds: ReputationThresholds): SendingVerdict {
  if (window.terminal < thresholds.minVolume) return { status: 'enabled', reason: null };
  const { bounceRate, complaintRate } = reputationRates(window);
  const over = (what: string, rate: number, threshold: number) =>
    `${what} rate ${percent(rate)} of the last 24 hours reached ${percent(threshold)} (${window.terminal} deliveries)`;
  if (bounceRate >= thresholds.pauseBounceRate) return { status: 'paused', reason: over('hard-bounce', bounceRate, thresholds.pauseBounceRate) };
  if (complaintRate >= thresholds.pauseComplaintRate) return { status: 'paused', reason: over('complaint', complaintRate, thresholds.pauseComplaintRate) };
  if (bounceRate >= thresholds.reviewBounceRate) return { status: 'under_review', reason: over('hard-bounce', bounceRate, thresholds.reviewBounceRate) };
  if (complaintRate >= thresholds.reviewComplaintRate) return { status: 'under_review', reason: over('complaint', complaintRate, thresholds.reviewComplaintRate) };
  return { status: 'enabled', reason: null };
}

/**
 * The status an evaluation moves an account to, or undefined when it stays: a paused account
 * stays paused until an operator resumes it (the evaluation never lifts a pause), an account
 * under review goes back to enabled once its rates fall below the review thresholds.
 */
export function nextSendingStatus(current: SendingStatus, window: ReputationWindow, thresholds: ReputationThresholds): SendingVerdict | undefined {
  if (current === 'paused') return undefined;
  const verdict = judgeReputation(window, thresholds);
  return verdict.status === current ? undefined : verdict;
}
