import {
  counterDeltasByKey,
  deriveMessageCause,
  deriveMessageStatus,
  isAllowedObservation,
  isAllowedTransition,
  isTerminal,
  observationEffects,
  reputationCountOf,
  transitionEffects,
  type AttemptOutcome,
  type DeliveryCause,
  type DeliveryObservation,
  type DeliveryStatus,
  type TransitionReason,
  type TlsPolicyApplied,
  type TlsResult,
  type WebhookEventType,
} from '@mailer/domain';
import type { Statement } from '../database';
import { lockAccountUsage, lockSenders } from '../lock-order';
import { moveActiveCounts, moveSenderCounts } from '../stores/counters-store';
import { addReputationCounts, type ReputationCount } from '../stores/reputation-counts-store';
import { suppressRecipients, type SuppressionEntry } from '../stores/suppressions-store';
import { webhookEventsOutbox, type DeliveryEvent } from '../stores/webhook-outbox-store';
import type { Transaction } from '../transaction';
import type { DeliveryRow, LockedMessage } from './locked-messages';
import {
  attemptsStatement,
  historyEventsStatement,
  insertDeliveriesStatement,
  messageStateStatements,
  updateDeliveriesStatement,
  type HistoryEvent,
  type MessageStateWrite,
} from './transition-statements';

/** A delivery intake creates: it exists from the transition that creates it. */
export interface NewDelivery extends Pick<DeliveryRow, 'id' | 'emailId' | 'recipient' | 'recipientDomain' | 'kind' | 'position'> {
  /** When it is first owed an attempt: its message's acceptance, or its scheduled time. */
  dueAt: Date;
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

/**
 * A change of one delivery's status, with what caused it (docs/api-decisions.md, "Delivery",
 * Transitions). Callers say what happened; the writer records it.
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
}

export interface TransitionWrite {
  /** Every message a change touches, with all its deliveries as locked in this transaction; new messages with none. */
  messages: readonly LockedMessage[];
  transitions?: readonly Transition[];
  observations?: readonly Observation[];
  /**
   * Usage and sender rows the caller writes after the write's statements, in the same
   * transaction (intake: the running total, the senders' last use): locked with those the
   * write moves, in the lock order, after the rows written.
   */
  sharedRows?: { accounts: readonly string[]; senders: readonly string[] };
}

export interface MessageAfter {
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  terminal: boolean;
  /** Every delivery of the message, as the write leaves it. */
  deliveries: DeliveryRow[];
}

export interface WrittenTransitions {
  /** To send in the caller's transaction, in this order (the lock order). */
  statements: Statement[];
  /** Each touched message's state after the changes. */
  messages: Map<string, MessageAfter>;
}

const newRow = (d: NewDelivery): DeliveryRow => ({
  id: d.id,
  emailId: d.emailId,
  recipient: d.recipient,
  recipientDomain: d.recipientDomain,
  kind: d.kind,
  position: d.position,
  status: 'queued',
  cause: null,
  attemptCount: 0,
  createdAt: d.dueAt,
  updatedAt: d.dueAt,
  nextAttemptAt: d.dueAt,
  leaseExpiresAt: null,
  leaseToken: null,
  delayReportedAt: null,
  complainedAt: null,
  heldAt: null,
});

/**
 * The one writer of delivery transitions (docs/api-decisions.md, "Delivery", Transitions):
 * every change of a delivery's status, and every report that adds a fact to one, is
 * recorded through here with all its side effects, in the lock order: the deliveries are
 * written (created or updated), the attempts, the events of the message history, the
 * messages' derived states (a message that became terminal loses its body); then the rows
 * other transactions share are locked, last so that they are held for the end of the
 * transaction only (docs/api-decisions.md, "Data layer", Lock order): the usage rows of
 * accounts whose active deliveries move and the senders whose counters move (with the
 * caller's sharedRows), and the counters move (counterDeltas), the accounts'
 * reputation counts are added (reputationCountOf), then the suppressions
 * (hard bounces and complaints of to/cc recipients) and the webhook outbox. A test
 * message's changes move no counter and add no reputation count and no suppression
 * (docs/api-decisions.md, "Test mode"); its events and webhooks are written as any other's. A BCC
 * delivery's recipient is never written beside it. A change its reason does not allow is a
 * programming error, thrown before anything is sent.
 */
export function writeTransitions(tx: Transaction, write: TransitionWrite): WrittenTransitions {
  const transitions = write.transitions ?? [];
  const observations = write.observations ?? [];
  const messageOf = new Map<string, LockedMessage>();
  const rows = new Map<string, DeliveryRow>();
  for (const message of write.messages) {
    for (const d of message.deliveries) {
      messageOf.set(d.id, message);
      rows.set(d.id, d);
    }
  }
  const byEmail = new Map(write.messages.map((m) => [m.emailId, m]));
  const after = new Map(rows);
  const created: DeliveryRow[] = [];
  const updated = new Set<string>();
  const moves: { account: string; sender: string; from: DeliveryStatus | null; to: DeliveryStatus }[] = [];
  const events: HistoryEvent[] = [];
  const webhooks: DeliveryEvent[] = [];
  const suppressions: SuppressionEntry[] = [];
  const reputation: ReputationCount[] = [];
  const attempts = new Map<AttemptRecord, DeliveryRow[]>();
  const changedMessages = new Map<string, { at: Date; onlyCreated: boolean }>();

  // What the history and the webhooks say of a delivery's change; a BCC recipient is never named.
  const report = (message: LockedMessage, row: DeliveryRow, type: string, cause: DeliveryCause | null, webhook: WebhookEventType | null, at: Date) => {
    events.push({ emailId: row.emailId, type, at, recipient: row.kind === 'bcc' ? null : row.recipient, cause });
    if (webhook) {
      webhooks.push({
        accountId: message.accountId,
        type: webhook,
        emailId: row.emailId,
        recipient: row.kind === 'bcc' ? null : row.recipient,
        recipientKind: row.kind,
        status: row.status,
        cause: row.cause,
        attemptCount: row.attemptCount,
        at,
      });
    }
  };

  for (const t of transitions) {
    const isNew = typeof t.delivery !== 'string';
    const before = isNew ? undefined : rows.get(t.delivery as string);
    const id = isNew ? (t.delivery as NewDelivery).id : (t.delivery as string);
    const message = isNew ? byEmail.get((t.delivery as NewDelivery).emailId) : messageOf.get(id);
    if ((!isNew && !before) || !message) throw new Error(`transition of delivery ${id}, which the write did not lock`);
    if (after.get(id) !== before) throw new Error(`two transitions of delivery ${id} in one write`);
    const from = before?.status ?? null;
    if (!isAllowedTransition(t.reason, from, t.to)) throw new Error(`transition ${t.reason} of delivery ${id} from ${from} to ${t.to} is not allowed`);
    const base = before ?? newRow(t.delivery as NewDelivery);
    const effects = transitionEffects(t.reason, base, t.to, t.cause);
    const row: DeliveryRow = {
      ...base,
      status: t.to,
      cause: t.cause,
      updatedAt: t.at,
      attemptCount: base.attemptCount + (effects.attempt ? 1 : 0),
      nextAttemptAt: t.nextAttemptAt ?? base.nextAttemptAt,
      createdAt: effects.firstOwedAgain ? (t.nextAttemptAt ?? base.nextAttemptAt) : base.createdAt,
      leaseExpiresAt: t.to === 'sending' ? t.lease!.expiresAt : null,
      leaseToken: t.to === 'sending' ? t.lease!.token : null,
      heldAt: effects.hold === 'set' ? t.at : effects.hold === 'clear' ? null : base.heldAt,
    };
    if (t.to === 'sending' && !t.lease) throw new Error(`delivery ${id} claimed without a lease`);
    after.set(id, row);
    if (isNew) {
      created.push(row);
      messageOf.set(id, message);
    } else {
      updated.add(id);
    }
    if (!message.test) moves.push({ account: message.accountId, sender: message.senderId, from, to: t.to });
    if (effects.event) report(message, row, effects.event, row.cause, effects.webhook, t.at);
    if (effects.suppression && !message.test) {
      suppressions.push({ reason: effects.suppression, accountId: message.accountId, email: row.recipient, emailId: row.emailId, at: t.at });
    }
    const counted = !message.test && reputationCountOf({ reason: t.reason, kind: row.kind, to: t.to, cause: t.cause });
    if (counted) reputation.push({ accountId: message.accountId, at: t.at, counts: counted });
    if (t.attempt) attempts.set(t.attempt, [...(attempts.get(t.attempt) ?? []), row]);
    else if (effects.attempt) throw new Error(`delivery ${id} attempted without its attempt`);
    const changed = changedMessages.get(message.emailId);
    changedMessages.set(message.emailId, {
      at: changed && changed.at > t.at ? changed.at : t.at,
      onlyCreated: (changed?.onlyCreated ?? true) && t.reason === 'created',
    });
  }

  for (const o of observations) {
    const before = after.get(o.delivery);
    const message = messageOf.get(o.delivery);
    if (!before || !message || !rows.has(o.delivery)) throw new Error(`observation of delivery ${o.delivery}, which the write did not lock`);
    if (!isAllowedObservation(o.observation, before)) throw new Error(`observation ${o.observation} of delivery ${o.delivery} is not allowed`);
    const row: DeliveryRow = o.observation === 'delayed' ? { ...before, delayReportedAt: o.at } : { ...before, complainedAt: o.at };
    after.set(o.delivery, row);
    updated.add(o.delivery);
    const effects = observationEffects(o.observation, row);
    report(message, row, effects.event, null, effects.webhook, o.at);
    if (effects.suppression && !message.test) {
      suppressions.push({ reason: effects.suppression, accountId: message.accountId, email: row.recipient, emailId: row.emailId, at: o.at });
    }
    const counted = !message.test && reputationCountOf({ observation: o.observation, kind: row.kind });
    if (counted) reputation.push({ accountId: message.accountId, at: o.at, counts: counted });
  }

  const states = new Map<string, MessageAfter>();
  const stateWrites: MessageStateWrite[] = [];
  for (const [emailId, change] of changedMessages) {
    const deliveries = [...after.values()].filter((d) => d.emailId === emailId);
    const status = deriveMessageStatus(deliveries.map((d) => d.status));
    const state = { status, cause: deriveMessageCause(deliveries, status), terminal: isTerminal(status), deliveries };
    states.set(emailId, state);
    // A new message's row is written queued; it needs writing only when its deliveries say otherwise.
    if (!change.onlyCreated || status !== 'queued') stateWrites.push({ emailId, at: change.at, ...state });
  }

  const accountDeltas = counterDeltasByKey(moves.map((m) => ({ key: m.account, from: m.from, to: m.to })));
  const senderDeltas = counterDeltasByKey(moves.map((m) => ({ key: m.sender, from: m.from, to: m.to })));
  const movedAccounts = [...accountDeltas].filter(([, d]) => d.active !== 0).map(([id]) => id);
  const movedSenders = [...senderDeltas].filter(([, d]) => d.accepted !== 0 || d.bounced !== 0 || d.failed !== 0 || d.deferred !== 0).map(([id]) => id);
  const statements: Statement[] = [
    ...(created.length > 0 ? [insertDeliveriesStatement(tx, created.map((row) => ({ row, accountId: messageOf.get(row.id)!.accountId })))] : []),
    ...(updated.size > 0 ? [updateDeliveriesStatement(tx, [...updated].map((id) => after.get(id)!))] : []),
    ...(attempts.size > 0 ? [attemptsStatement(tx, [...attempts])] : []),
    ...(events.length > 0 ? [historyEventsStatement(tx, events)] : []),
    ...messageStateStatements(tx, stateWrites),
    ...lockAccountUsage(tx, [...movedAccounts, ...(write.sharedRows?.accounts ?? [])]),
    ...lockSenders(tx, [...movedSenders, ...(write.sharedRows?.senders ?? [])]),
    ...moveActiveCounts(tx, accountDeltas),
    ...moveSenderCounts(tx, senderDeltas),
    ...addReputationCounts(tx, reputation),
    ...(suppressions.length > 0 ? [suppressRecipients(tx, suppressions)] : []),
    ...(webhooks.length > 0 ? [webhookEventsOutbox(tx, webhooks)] : []),
  ];
  return { statements, messages: states };
}
