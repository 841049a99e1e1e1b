import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { DELIVER_MESSAGE_JOB, DELIVER_MESSAGE_OPTIONS, DELIVERY_QUEUE, deliverMessageJobId, MESSAGES_PER_JOB, type DeliverMessagePayload } from './catalog';

/** The delivery job owed to a message: its id is derived from the message and the due time. */
export interface DueMessage {
  emailId: string;
  dueAt: Date;
  /** The message's account: the daemon claims accounts in turn (see DeliverMessagePayload). */
  accountId?: string;
}

export interface DeliveryQueue {
  /** Adds the job owed to one message; adding the same (emailId, dueAt) twice is a no-op. */
  enqueue(job: DueMessage, now?: Date): Promise<void>;
  /** Adds many jobs in one round trip (BullMQ addBulk), with the same no-op rule. */
  enqueueMany(jobs: DueMessage[], now?: Date): Promise<void>;
  /**
   * Adds jobs for messages accepted together, in one round trip: neighbours of one account due
   * at the same time share a job (up to MESSAGES_PER_JOB), named after the first of them.
   */
  enqueueTogether(jobs: DueMessage[], now?: Date): Promise<void>;
  /** Those of `jobs` Redis does not hold: never added, lost, or completed and removed. */
  missing(jobs: DueMessage[]): Promise<DueMessage[]>;
  queue: Queue<DeliverMessagePayload>;
  close(): Promise<void>;
}

export function createDeliveryQueue(connection: Redis, prefix: string): DeliveryQueue {
  const queue = new Queue<DeliverMessagePayload>(DELIVERY_QUEUE, { connection, prefix });
  // A producer without Redis must not crash the process; enqueue rejects and the caller logs it.
  queue.on('error', () => undefined);
  // BullMQ waits for a connection that is not ready, however long Redis stays away: fail at once instead.
  const connected = () => {
    if (connection.status !== 'ready') throw new Error(`Redis is not connected (${connection.status})`);
  };
  const job = (emailIds: string[], dueAt: Date, accountId: string | undefined, now: Date) => ({
    name: DELIVER_MESSAGE_JOB,
    data: accountId === undefined ? { emailIds } : { emailIds, accountId },
    opts: { ...DELIVER_MESSAGE_OPTIONS, jobId: deliverMessageJobId(emailIds[0]!, dueAt), delay: Math.max(0, dueAt.getTime() - now.getTime()) },
  });
  /** One round trip; neighbours of one account due at the same time share a job, up to `perJob` of them. */
  const addInJobsOf = async (perJob: number, jobs: DueMessage[], now: Date) => {
    connected();
    const grouped: { emailIds: string[]; dueAt: Date; accountId?: string }[] = [];
    for (const { emailId, dueAt, accountId } of jobs) {
      const last = grouped.at(-1);
      const joins = last && last.dueAt.getTime() === dueAt.getTime() && last.accountId === accountId && last.emailIds.length < perJob;
      if (joins) last.emailIds.push(emailId);
      else grouped.push({ emailIds: [emailId], dueAt, accountId });
    }
    if (grouped.length > 0) await queue.addBulk(grouped.map((j) => job(j.emailIds, j.dueAt, j.accountId, now)));
  };
  return {
    queue,
    async enqueue({ emailId, dueAt, accountId }, now = new Date()) {
      connected();
      const { name, data, opts } = job([emailId], dueAt, accountId, now);
      await queue.add(name, data, opts);
    },
    enqueueMany: (jobs, now = new Date()) => addInJobsOf(1, jobs, now),
    enqueueTogether: (jobs, now = new Date()) => addInJobsOf(MESSAGES_PER_JOB, jobs, now),
    async missing(jobs) {
      connected();
      if (jobs.length === 0) return [];
      const pipeline = connection.pipeline();
      for (const j of jobs) pipeline.exists(queue.toKey(deliverMessageJobId(j.emailId, j.dueAt)));
      const replies = (await pipeline.exec()) ?? [];
      return jobs.filter((_, i) => {
        const [error, exists] = replies[i] ?? [new Error('no reply'), 0];
        if (error) throw error;
        return exists === 0;
      });
    },
    close: () => queue.close(),
  };
}
