/** What one POST /v1/emails request of the chaos client came back with. */
export type Answer =
  /** An HTTP answer; `retryAfter` in seconds when the API sent Retry-After. */
  | { kind: 'status'; status: number; retryAfter: number | null }
  /** No answer: refused or reset connection, or no answer within the client's timeout. */
  | { kind: 'network_error' };

export type NextStep =
  | { action: 'accepted' }
  /** Send the same request again (same Idempotency-Key) to the next API, after `delayMs`. */
  | { action: 'retry'; delayMs: number }
  /** A 4xx other than 429: the request itself was refused; sending it again cannot help. */
  | { action: 'refused' }
  /** Still failing after `maxAttempts`: the client gives up, as an application would. */
  | { action: 'abandoned' };

export interface RetryPolicyOptions {
  maxAttempts: number;
  /** The first backoff without Retry-After; doubled on each attempt up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After is honoured up to this long. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicyOptions = { maxAttempts: 40, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

/**
 * The client's rule, as an SDK's (docs/api-decisions.md, "Idempotency"): a 2xx is accepted;
 * a network error, any 5xx, a 429 or a 503 is sent again with the same Idempotency-Key,
 * after Retry-After when the API gave one, else after an exponential backoff; any other
 * answer is final. `attempt` counts the requests sent so far, this one included (from 1).
 */
export function nextStep(answer: Answer, attempt: number, options: RetryPolicyOptions = DEFAULT_RETRY_POLICY): NextStep {
  if (answer.kind === 'status' && answer.status >= 200 && answer.status < 300) return { action: 'accepted' };
  const retriable = answer.kind === 'network_error' || answer.status >= 500 || answer.status === 429;
  if (!retriable) return { action: 'refused' };
  if (attempt >= options.maxAttempts) return { action: 'abandoned' };
  if (answer.kind === 'status' && answer.retryAfter !== null) return { action: 'retry', delayMs: Math.min(answer.retryAfter * 1000, options.maxRetryAfterMs) };
  return { action: 'retry', delayMs: Math.min(options.baseDelayMs * 2 ** (attempt - 1), options.maxDelayMs) };
}
