import type { EmailType } from '../emails/email-limits';
import type { DeliveryCause } from './causes';
import type { AttemptOutcome, DeliveryStatus } from './message-status';
import type { TlsPolicyApplied } from '../senders/transport-security';
import type { TlsResult } from './tls-failure';
import type { DeliveryObservation, TransitionReason } from './transitions';

/** A delivery as a transaction that holds its lock reads it: the latest committed version. */
export interface DeliveryRecord {
  id: string;
  emailId: string;
  recipient: string;
  recipientDomain: string;
  kind: 'to' | 'cc' | 'bcc';
  /** Its place in the message: RCPT TO and attempts list recipients in this order. */
  position: number;
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  attemptCount: number;
  /** When it was first owed an attempt: its message's acceptance, or its scheduled time. */
  createdAt: Date;
  updatedAt: Date;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
  leaseToken: string | null;
  delayReportedAt: Date | null;
  complainedAt: Date | null;
  /** When its recipient unsubscribed through its List-Unsubscribe (docs/api-decisions.md, "Unsubscribe"). */
  unsubscribedAt: Date | null;
  /** When its recipient's mail client first fetched the open pixel, and first followed a tracked link (docs/api-decisions.md, "Opens and clicks"). */
  openedAt: Date | null;
  clickedAt: Date | null;
  /** Set while an operator holds it (docs/api-decisions.md, "Queue operations"). */
  heldAt: Date | null;
}

/** A message and every one of its deliveries, as locked together. */
export interface MessageDeliveries {
  emailId: string;
  accountId: string;
  senderId: string;
  /**
   * A test message: simulated, and its transitions count nothing of usage, suppressions or
   * reputation (docs/api-decisions.md, "Test mode").
   */
  test: boolean;
  /** Its stream: the suppressions its deliveries add hold for it (suppressedStream). */
  stream: EmailType;
  /** In id order, as locked. */
  deliveries: DeliveryRecord[];
}

/** A delivery intake creates: it exists from the transition that creates it. */
export interface NewDelivery extends Pick<DeliveryRecord, 'id' | 'emailId' | 'recipient' | 'recipientDomain' | 'kind' | 'position'> {
  /** When it is first owed an attempt: its message's acceptance, or its scheduled time. */
  dueAt: Date;
}

export interface AttemptTransport {
  mxHost: string;
  /** The address connected to; null when no address took a connection. */
  mxAddress: string | null;
  /** The reply that decided the attempt, its text at most 512 characters; null when none came. */
  reply: { code: number | null; enhancedStatus: string | null; text: string } | null;
  /** The session's TLS; null when the message went in clear (or never went). */
  tls: { version: string; cipher: string; verified: boolean } | null;
  policy: TlsPolicyApplied;
  /** How the session fared under the policy (`success` or an RFC 8460 failure type); null when no TLS negotiation was reached. */
  tlsResult: TlsResult | null;
}

/** One SMTP transaction, or the local decision that stood in for one. */
export interface AttemptRecord {
  startedAt: Date;
  endedAt: Date;
  outcome: AttemptOutcome;
  cause: DeliveryCause | null;
  /** Operator-only transport facts (docs/api-decisions.md, "Delivery", Attempts); none for a local decision. */
  transport: AttemptTransport | null;
}

/**
 * A change of one delivery's status, with what caused it (docs/api-decisions.md, "Delivery",
 * Transitions). Decisions say what happened; the writer records it with the effects its
 * reason's row names (transitionEffects).
 */
export interface Transition {
  reason: TransitionReason;
  /** The delivery, among the locked messages' deliveries; for `created`, the one made. */
  delivery: string | NewDelivery;
  to: DeliveryStatus;
  cause: DeliveryCause | null;
  at: Date;
  /** For a waiting status: when it is next owed an attempt (unchanged when absent). */
  nextAttemptAt?: Date;
  /** For `sending`: the lease it is held under until it expires. */
  lease?: { token: string; expiresAt: Date };
  /** For `attempted`: the attempt, shared by the transitions of one SMTP transaction. */
  attempt?: AttemptRecord;
}

/** A report that adds a fact to a delivery without changing its status. */
export interface Observation {
  observation: DeliveryObservation;
  delivery: string;
  at: Date;
  /** For `opened` and `clicked`: what the request told (docs/api-decisions.md, "Opens and clicks"). */
  engagement?: Engagement;
}

/**
 * An open or a click as its request showed it: the link's original URL (a click), the user
 * agent, and the image proxy it came through (detectImageProxy), shown in the event and its webhook.
 */
export interface Engagement {
  url?: string;
  userAgent: string | null;
  proxy: ImageProxy | null;
}

/** The mail providers' image proxies an open is known to come through (detectImageProxy). */
export type ImageProxy = 'apple_mpp' | 'gmail';

/** What a decision makes of locked messages: the changes for the writer, and its answer to the caller. */
export interface DeliveryChanges<T> {
  transitions?: readonly Transition[];
  observations?: readonly Observation[];
  answer: T;
}
