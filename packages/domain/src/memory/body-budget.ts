import { MIB } from '../emails/email-limits';

/** The largest request body (docs/api-decisions.md, "Conventions"), decoded: 413 beyond it. */
export const MAX_BODY_BYTES = 16 * MIB;

/**
 * Bodies of the largest size one account may have in flight at once by default (contract 22): a
 * worker pool sending invoices in parallel is not refused for its second body.
 */
export const BODIES_PER_ACCOUNT = 4;
/** MAX_BODY_BYTES_IN_FLIGHT by default: two accounts' whole shares. */
export const DEFAULT_BODY_BYTES_IN_FLIGHT = 2 * BODIES_PER_ACCOUNT * MAX_BODY_BYTES;

/**
 * What one process may hold of bodies being received (docs/api-decisions.md, "Request bodies"):
 * the API's request bodies and the submission listener's message data, each process its own.
 */
export interface BodyBudgetLimits {
  /** MAX_BODY_BYTES_IN_FLIGHT: over everything the process receives at once. */
  total: number;
  /** MAX_BODY_BYTES_PER_ACCOUNT: over one account's bodies. */
  perAccount: number;
}

/**
 * The limits from what is configured: an account's share unset is BODIES_PER_ACCOUNT bodies of
 * the largest size, or the whole budget when that is smaller.
 */
export function bodyBudgetLimits(total: number, perAccount?: number): BodyBudgetLimits {
  return { total, perAccount: perAccount ?? Math.min(BODIES_PER_ACCOUNT * MAX_BODY_BYTES, total) };
}

/** Whether `bytes` more fit: `account` or `process` names the bound they do not fit under. */
export type BodyBudgetFit = 'fits' | 'account' | 'process';

/** The one rule for taking `bytes` more of the budget for an account that holds `held.account` while the process holds `held.total`. */
export function fitBodyBudget(limits: BodyBudgetLimits, held: { total: number; account: number }, bytes: number): BodyBudgetFit {
  if (held.account + bytes > limits.perAccount) return 'account';
  if (held.total + bytes > limits.total) return 'process';
  return 'fits';
}
