import type { JobsOptions } from 'bullmq';

/**
 * The one queue between the API and the delivery daemon. Jobs carry ids only: Postgres
 * holds the message and decides what is owed, so a lost or repeated job never loses or
 * duplicates a delivery.
 */
export const DELIVERY_QUEUE = 'deliveries';

export const DELIVER_MESSAGE_JOB = 'deliver-message';

export interface DeliverMessagePayload {
  /** Messages whose deliveries fall due at the same time: one, or up to MESSAGES_PER_JOB accepted together. */
  emailIds: string[];
  /** Their account, whose turn the daemon's claims take (absent from jobs enqueued without one). */
  accountId?: string;
}

/**
 * Messages accepted in one intake batch travel in one job: BullMQ's add, fetch and
 * completion are scripts run in Redis for each job, and per message they cost about as
 * much CPU as the delivery daemon's own event loop. Small enough that one job's messages
 * are worked on side by side (see the worker's message slots).
 */
export const MESSAGES_PER_JOB = 10;

/**
 * A job's id is derived from its (first) message and the time its deliveries are due, so
 * the API, the worker's retry scheduling and the reconciler all name the same owed work the
 * same way and BullMQ ignores a second add.
 */
export function deliverMessageJobId(emailId: string, dueAt: Date): string {
  return `${emailId}-${dueAt.getTime()}`;
}

export const DELIVER_MESSAGE_OPTIONS: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
  // Delivery retries are scheduled from Postgres by the worker, not by BullMQ.
  attempts: 1,
};
