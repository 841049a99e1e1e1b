/** A one-line text (a name, a reason): trimmed, 1 to `max` characters, no control characters. */
export const oneLineTextRule = (max: number) => `must be 1 to ${max} characters without control characters`;

/** The text trimmed, or undefined when it breaks oneLineTextRule(max). */
export function normalizeOneLineText(raw: string, max: number): string | undefined {
  const text = raw.trim();
  if (text.length === 0 || [...text].length > max || /\p{Cc}/u.test(text)) return undefined;
  return text;
}

/** An account's name (the CLI's and the console's rule). */
export const MAX_ACCOUNT_NAME_LENGTH = 200;
export const ACCOUNT_NAME_RULE = oneLineTextRule(MAX_ACCOUNT_NAME_LENGTH);
export const normalizeAccountName = (raw: string) => normalizeOneLineText(raw, MAX_ACCOUNT_NAME_LENGTH);

/** The reason an operator gives for pausing or resuming an account's sending. */
export const MAX_SENDING_REASON_LENGTH = 500;

/** A plan's limits are PostgreSQL `integer` columns. */
export const MAX_PLAN_LIMIT = 2_147_483_647;
export const PLAN_LIMIT_RULE = `must be a whole number from 0 to ${MAX_PLAN_LIMIT}`;

/** A limit given as decimal digits, or undefined when it is not a whole number from 0 to MAX_PLAN_LIMIT. */
export function parsePlanLimit(raw: string): number | undefined {
  const value = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  return Number.isSafeInteger(value) && value <= MAX_PLAN_LIMIT ? value : undefined;
}
