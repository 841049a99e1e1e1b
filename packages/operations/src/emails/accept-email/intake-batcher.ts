import { isDatabaseUnavailable, type EmailOwner } from '@mailer/db';
import { runIntakeBatch, type IntakeDependencies } from './intake-batch';
import type { IntakeOutcome, IntakeRequest } from './intake-outcomes';

/** Bounds of one batch: rows per statement and bytes held in one transaction. */
const MAX_REQUESTS = 100;
const MAX_RECIPIENTS = 2_000;
const MAX_BYTES = 16 * 1024 * 1024;
/** Redis slower than this after the commit does not hold the 202 back. */
const AFTER_COMMIT_TIMEOUT_MS = 2_000;

/** What a request ends as; a `retry` outcome is requeued by the batcher, never handed out. */
export type FinalOutcome = Exclude<IntakeOutcome, { kind: 'retry' }>;

interface Pending {
  request: IntakeRequest;
  bytes: number;
  resolve(outcome: FinalOutcome): void;
  reject(error: unknown): void;
}

/** Roughly the bytes a request adds to a batch's statements (text in UTF-16 units, attachments decoded). */
const payloadBytes = (r: IntakeRequest) =>
  r.drafts.reduce((sum, d) => sum + (d.text?.length ?? 0) + (d.html?.length ?? 0) + d.attachments.reduce((bytes, a) => bytes + a.content.length, 0), 0);

/**
 * Batches of one account that may be in flight at once. The second overlaps its claims
 * with the first's locked section (usage check, writes, commit), so the account's lock is
 * hardly ever idle; more would only queue on that lock.
 */
const MAX_IN_FLIGHT = 2;

/** An account's requests waiting for a batch, and the batches it has in flight. */
interface Lane {
  queue: Pending[];
  running: number;
  /** Idempotency-Keys of the batches in flight: a repeat waits until they are done. */
  keysInFlight: Set<string>;
}

/**
 * Group commit for intake. Requests of one account are serialized anyway (the usage
 * lock), so while the account's transactions run, its next requests wait here and then
 * go together in one transaction: one lock, one commit and the same few statements for
 * all of them instead of per request. Across accounts batches run in parallel. Each
 * request still gets its own outcome, exactly as alone: admitted while the plan has
 * room, in arrival order within a batch. No two batches in flight hold one
 * Idempotency-Key: a repeat waits for a later batch and finds the first one's record.
 * An account's test requests have a lane of their own: a batch is of one mode.
 */
export class IntakeBatcher {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly deps: IntakeDependencies) {}

  submit(owner: EmailOwner, request: IntakeRequest): Promise<FinalOutcome> {
    return new Promise((resolve, reject) => {
      const name = `${owner.accountId}${owner.test ? ':test' : ''}`;
      let lane = this.lanes.get(name);
      if (!lane) this.lanes.set(name, (lane = { queue: [], running: 0, keysInFlight: new Set() }));
      lane.queue.push({ request, bytes: payloadBytes(request), resolve, reject });
      this.startBatches(name, owner, lane);
    });
  }

  /** Starts batches while the lane has room for them and requests to put in them. */
  private startBatches(name: string, owner: EmailOwner, lane: Lane): void {
    while (lane.running < MAX_IN_FLIGHT) {
      const batch = takeBatch(lane.queue, lane.keysInFlight);
      if (batch.length === 0) break;
      lane.running++;
      for (const key of keysOf(batch)) lane.keysInFlight.add(key);
      void this.run(owner, batch, lane.queue).finally(() => {
        lane.running--;
        for (const key of keysOf(batch)) lane.keysInFlight.delete(key);
        if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(name);
        else this.startBatches(name, owner, lane);
      });
    }
  }

  private async run(owner: EmailOwner, batch: Pending[], queue: Pending[]): Promise<void> {
    let outcomes: IntakeOutcome[];
    try {
      outcomes = await runIntakeBatch(this.deps, owner, batch.map((p) => p.request));
    } catch (error) {
      // One request must not fail the others: unless the database is away, retry each alone.
      if (batch.length > 1 && !isDatabaseUnavailable(error)) {
        for (const pending of batch) await this.run(owner, [pending], queue);
      } else {
        for (const pending of batch) pending.reject(error);
      }
      return;
    }
    const accepted = outcomes.flatMap((o) => (o.kind === 'accepted' ? [o] : []));
    const afterCommit = this.afterCommit(accepted);
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.kind === 'retry') queue.unshift(pending);
      else if (outcome.kind === 'accepted') void afterCommit.then(() => pending.resolve(outcome));
      else pending.resolve(outcome);
    });
  }

  /**
   * Once committed, the messages are owed delivery whatever happens next: their jobs are
   * enqueued, and any that do not make it (Redis away, say) are added by the reconciler.
   * A failure here never turns a 202 into an error, nor does slowness hold it back long.
   */
  private async afterCommit(accepted: Extract<IntakeOutcome, { kind: 'accepted' }>[]): Promise<void> {
    const jobs = accepted.flatMap((o) => o.jobs);
    if (jobs.length === 0) return;
    const { deps } = this;
    const emailIds = jobs.map((job) => job.emailId);
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        deps.logger.warn('enqueueing is slow; answering anyway', { email_ids: emailIds });
        resolve();
      }, AFTER_COMMIT_TIMEOUT_MS);
    });
    const enqueue = deps.deliveryQueue.enqueueTogether(jobs, deps.now()).catch((error: unknown) => {
      deps.logger.warn('delivery jobs not enqueued; the reconciler will add them', { email_ids: emailIds, error: (error as Error).message });
    });
    await Promise.race([enqueue, slow]);
    clearTimeout(timer);
  }
}

const keysOf = (batch: Pending[]): string[] => batch.flatMap((p) => (p.request.idempotencyKey === null ? [] : [p.request.idempotencyKey]));

/** Takes the next batch off the queue in arrival order, leaving repeats of a key (in it or in flight) for later. */
function takeBatch(queue: Pending[], keysInFlight: ReadonlySet<string>): Pending[] {
  const batch: Pending[] = [];
  const keys = new Set<string>(keysInFlight);
  let recipients = 0;
  let bytes = 0;
  for (let i = 0; i < queue.length && batch.length < MAX_REQUESTS; ) {
    const pending = queue[i]!;
    const size = pending.request.drafts.reduce((sum, d) => sum + d.recipients.recipients.length, 0);
    const fits = batch.length === 0 || (recipients + size <= MAX_RECIPIENTS && bytes + pending.bytes <= MAX_BYTES);
    if (!fits) break;
    const key = pending.request.idempotencyKey;
    if (key !== null && keys.has(key)) {
      i++;
      continue;
    }
    if (key !== null) keys.add(key);
    recipients += size;
    bytes += pending.bytes;
    batch.push(pending);
    queue.splice(i, 1);
  }
  return batch;
}
