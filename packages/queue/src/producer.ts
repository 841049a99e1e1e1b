import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { DELIVER_MESSAGE_JOB, DELIVER_MESSAGE_OPTIONS, DELIVERY_QUEUE, deliverMessageJobId, type DeliverMessagePayload } from './catalog';

export interface DeliveryQueue {
  /** Adds the job for `emailId` due at `dueAt`; adding the same (emailId, dueAt) twice is a no-op. */
  enqueue(emailId: string, dueAt: Date, now?: Date): Promise<void>;
  queue: Queue<DeliverMessagePayload>;
  close(): Promise<void>;
}

export function createDeliveryQueue(connection: Redis, prefix: string): DeliveryQueue {
  const queue = new Queue<DeliverMessagePayload>(DELIVERY_QUEUE, { connection, prefix });
  // A producer without Redis must not crash the process; enqueue rejects and the caller logs it.
  queue.on('error', () => undefined);
  return {
    queue,
    async enqueue(emailId, dueAt, now = new Date()) {
      await queue.add(DELIVER_MESSAGE_JOB, { emailId }, {
        ...DELIVER_MESSAGE_OPTIONS,
        jobId: deliverMessageJobId(emailId, dueAt),
        delay: Math.max(0, dueAt.getTime() - now.getTime()),
      });
    },
    close: () => queue.close(),
  };
}
