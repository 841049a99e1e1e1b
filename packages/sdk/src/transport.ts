import { errorBody, MailerApiError, noAnswer } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** A wait longer than this (seconds) is not waited for: the error is thrown instead. */
  maxRetryAfter: number;
  /** Milliseconds each attempt may take, answer body included. */
  timeout: number;
  fetch: typeof fetch;
}

export interface Attempted {
  url: URL;
  init: { method: string; headers: Record<string, string>; body?: string };
  /**
   * Whether the request may be sent again after it may have reached the API: true for reads,
   * deletions and requests under an Idempotency-Key (the same one on every attempt).
   */
  repeatable: boolean;
  signal?: AbortSignal;
}

const RETRIED_STATUSES = new Set([429, 503]);
/** Error codes of a connection that was never made: nothing reached the API, any request may be sent again. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Seconds before retry `attempt` (0-based) when the API named no time: 0.5, 1, 2, 4 … with jitter, at most 8. */
export const backoffSeconds = (attempt: number) => Math.min(8, 0.5 * 2 ** attempt) * (0.5 + Math.random() / 2);

function sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, seconds * 1000);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** The body as its Content-Type says: JSON, text, or undefined when there is none. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  return /json/i.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
}

const causeCode = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
};

type Outcome = { kind: 'answered'; status: number; ok: boolean; body: unknown; requestId: string | null; retryAfter: number | null } | { kind: 'failed'; error: MailerApiError; connected: boolean };

/** One attempt, its answer read in full within the timeout. */
async function attempt(request: Attempted, policy: RetryPolicy): Promise<Outcome> {
  const deadline = AbortSignal.timeout(policy.timeout);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  try {
    const response = await policy.fetch(request.url, { ...request.init, signal });
    const body = await readBody(response);
    return { kind: 'answered', status: response.status, ok: response.ok, body, requestId: response.headers.get('x-request-id'), retryAfter: retryAfterSeconds(response) };
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    if (deadline.aborted) return { kind: 'failed', error: noAnswer('timeout', `No answer within ${policy.timeout} ms.`, error), connected: true };
    const code = causeCode(error);
    const message = `The request got no answer${code ? ` (${code})` : ''}: ${(error as Error).message}`;
    return { kind: 'failed', error: noAnswer('network_error', message, error), connected: !code || !NOT_CONNECTED.has(code) };
  }
}

/**
 * Sends the request, retrying what may help: a 429 or 503 after its Retry-After (or a backoff
 * when it names none), and a request that got no answer after a backoff, when nothing reached
 * the API or the request is repeatable. A timeout is not retried. At most `maxRetries` retries;
 * a wait over `maxRetryAfter` throws at once.
 */
export async function send(request: Attempted, policy: RetryPolicy): Promise<unknown> {
  for (let retry = 0; ; retry++) {
    const outcome = await attempt(request, policy);
    if (outcome.kind === 'answered' && outcome.ok) return outcome.body;
    const wait =
      outcome.kind === 'answered'
        ? RETRIED_STATUSES.has(outcome.status)
          ? (outcome.retryAfter ?? backoffSeconds(retry))
          : null
        : outcome.error.code === 'network_error' && (request.repeatable || !outcome.connected)
          ? backoffSeconds(retry)
          : null;
    if (wait === null || retry >= policy.maxRetries || wait > policy.maxRetryAfter) {
      if (outcome.kind === 'failed') throw outcome.error;
      throw new MailerApiError(outcome.status, errorBody(outcome.status, outcome.body), outcome.requestId, outcome.retryAfter);
    }
    await sleep(wait, request.signal);
  }
}
