import type { DeliveryRecord, MessageDeliveries } from '../delivery/delivery-records';

const T0 = new Date('2026-12-01T10:00:00Z');

/** A delivery as locked, queued and due at T0 unless told otherwise. */
export function delivery(id: string, fields: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id,
    emailId: 'eml_1',
    recipient: `${id}@example.com`,
    recipientDomain: 'example.com',
    kind: 'to',
    position: 0,
    status: 'queued',
    cause: null,
    attemptCount: 0,
    createdAt: T0,
    updatedAt: T0,
    nextAttemptAt: T0,
    leaseExpiresAt: null,
    leaseToken: null,
    delayReportedAt: null,
    complainedAt: null,
    unsubscribedAt: null,
    openedAt: null,
    clickedAt: null,
    heldAt: null,
    ...fields,
  };
}

export function message(deliveries: DeliveryRecord[], fields: Partial<MessageDeliveries> = {}): MessageDeliveries {
  return { emailId: deliveries[0]?.emailId ?? 'eml_1', accountId: 'acc_1', senderId: 'snd_1', test: false, stream: 'transactional', deliveries, ...fields };
}

export const byId = (...messages: MessageDeliveries[]): Map<string, MessageDeliveries> => new Map(messages.map((m) => [m.emailId, m]));
