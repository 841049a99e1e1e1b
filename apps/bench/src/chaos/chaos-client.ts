import { randomUUID } from 'node:crypto';
import { MailerApiError, MailerClient } from '@mailer/sdk';
import { SERVER_ERROR_SAMPLES } from './audit';
import { nextStep, type Answer } from './retry-policy';

type SendBody = Parameters<MailerClient['emails']['send']>[0];

export interface ChaosClientOptions {
  /** The APIs' base URLs; requests go round-robin, a retry to the next one. */
  apis: string[];
  sendingKey: string;
  /** Messages per second, and how many in all. */
  rate: number;
  messages: number;
  /** The body of message number `n` (from 0). */
  body: (n: number) => SendBody;
  /** A request unanswered for this long counts as a network error. */
  timeoutMs: number;
}

export interface ClientResult {
  /** The email id of each Idempotency-Key that got a 2xx. */
  acceptedIds: string[];
  refused: number;
  abandoned: number;
  answers: Record<string, number>;
  serverErrorSamples: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The chaos run's application: `messages` messages at `rate` per second, each with its own
 * Idempotency-Key, through the SDK (its own retries off); a network error, a 5xx or a 429
 * is sent again with the same key to the next API, as nextStep says. Every answer is counted.
 */
export async function sendUnderChaos(options: ChaosClientOptions): Promise<ClientResult> {
  const clients = options.apis.map(
    (baseUrl) =>
      new MailerClient({
        baseUrl,
        apiKey: options.sendingKey,
        maxRetries: 0,
        timeout: options.timeoutMs,
      }),
  );
  const result: ClientResult = { acceptedIds: [], refused: 0, abandoned: 0, answers: {}, serverErrorSamples: [] };
  const count = (key: string) => (result.answers[key] = (result.answers[key] ?? 0) + 1);

  const sendOne = async (n: number) => {
    const idempotencyKey = randomUUID();
    const body = options.body(n);
    for (let attempt = 1; ; attempt++) {
      const client = clients[(n + attempt - 1) % clients.length]!;
      let answer: Answer;
      let id: string | undefined;
      try {
        id = (await client.emails.send(body, { idempotencyKey })).id;
        answer = { kind: 'status', status: 202, retryAfter: null };
      } catch (error) {
        if (!(error instanceof MailerApiError) || error.status === null) {
          answer = { kind: 'network_error' };
        } else {
          answer = { kind: 'status', status: error.status, retryAfter: error.retryAfter };
          if (error.status >= 500 && error.status !== 503 && result.serverErrorSamples.length < SERVER_ERROR_SAMPLES) {
            result.serverErrorSamples.push(`${error.status} ${JSON.stringify(error.body)}`);
          }
        }
      }
      count(answer.kind === 'status' ? String(answer.status) : answer.kind);
      const step = nextStep(answer, attempt);
      if (step.action === 'accepted') return void result.acceptedIds.push(id!);
      if (step.action === 'refused') return void result.refused++;
      if (step.action === 'abandoned') return void result.abandoned++;
      await sleep(step.delayMs);
    }
  };

  const started = Date.now();
  const sends: Promise<void>[] = [];
  for (let n = 0; n < options.messages; n++) {
    const due = started + (n * 1000) / options.rate;
    if (due > Date.now()) await sleep(due - Date.now());
    sends.push(sendOne(n));
  }
  await Promise.all(sends);
  return result;
}
