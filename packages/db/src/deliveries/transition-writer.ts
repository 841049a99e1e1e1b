import {
  counterDeltasByKey,
  deriveMessageCause,
  deriveMessageStatus,
  isAllowedObservation,
  isAllowedTransition,
  isTerminal,
  observationEffects,
  suppressedStream,
  movesSenderCounts,
  transitionEffects,
  type AttemptRecord,
  type DeliveryCause,
  type DeliveryRecord,
  type DeliveryStatus,
  type MessageDeliveries,
  type NewDelivery,
  type Observation,
  type Transition,
  type WebhookEventType,
} from '@mailer/domain';
import type { Statement } from '../database';
import { lockAccountUsage, lockSenders } from '../lock-order';
import { moveActiveCounts, moveSenderCounts } from '../stores/counters-store';
import { addReputationCounts, type ReputationCount } from '../stores/reputation-counts-store';
import { suppressRecipients, type SuppressionEntry } from '../stores/suppressions-store';
import { webhookEventsOutbox, type DeliveryEvent } from '../stores/webhook-outbox-store';
import type { Transaction } from '../transaction';
import {
  attemptsStatement,
  historyEventsStatement,
  insertDeliveriesStatement,
  messageStateStatements,
  updateDeliveriesStatement,
  type EngagementData,
  type HistoryEvent,
  type MessageStateWrite,
} from './transition-statements';

export interface TransitionWrite {
  /** Every message a change touches, with all its deliveries as locked in this transaction; new messages with none. */
  messages: readonly MessageDeliveries[];
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
  deliveries: DeliveryRecord[];
}

export interface WrittenTransitions {
  /** To send in the caller's transaction, in this order (the lock order). */
  statements: Statement[];
  /** Each touched message's state after the changes. */
  messages: Map<string, MessageAfter>;
}

/** A message's state as its deliveries make it (deriveMessageStatus, deriveMessageCause). */
export function messageAfter(deliveries: DeliveryRecord[]): MessageAfter {
  const status = deriveMessageStatus(deliveries.map((d) => d.status));
  return { status, cause: deriveMessageCause(deliveries, status), terminal: isTerminal(status), deliveries };
}

/** The entry a message's delivery adds: its account's, for the stream its reason suppresses (suppressedStream). */
const suppressionOf = (reason: SuppressionEntry['reason'], message: MessageDeliveries) => ({ reason, accountId: message.accountId, stream: suppressedStream(reason, message.stream) });

const newRow = (d: NewDelivery): DeliveryRecord => ({
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
  unsubscribedAt: null,
  openedAt: null,
  clickedAt: null,
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
 * reputation counts are added, then the suppressions and the webhook outbox: every effect as
 * the reason's (or observation's) row names it (transitionEffects, observationEffects). A test
 * message's changes move no counter and add no reputation count and no suppression
 * (docs/api-decisions.md, "Test mode"); its events and webhooks are written as any other's. A BCC
 * delivery's recipient is never written beside it. A change its reason does not allow is a
 * programming error, thrown before anything is sent.
 */
export function writeTransitions(tx: Transaction, write: TransitionWrite): WrittenTransitions {
  const transitions = write.transitions ?? [];
  const observations = write.observations ?? [];
  const messageOf = new Map<string, MessageDeliveries>();
  const rows = new Map<string, DeliveryRecord>();
  for (const message of write.messages) {
    for (const d of message.deliveries) {
      messageOf.set(d.id, message);
      rows.set(d.id, d);
    }
  }
  const byEmail = new Map(write.messages.map((m) => [m.emailId, m]));
  const after = new Map(rows);
  const created: DeliveryRecord[] = [];
  const updated = new Set<string>();
  const moves: { account: string; sender: string; from: DeliveryStatus | null; to: DeliveryStatus }[] = [];
  const events: HistoryEvent[] = [];
  const webhooks: DeliveryEvent[] = [];
  const suppressions: SuppressionEntry[] = [];
  const reputation: ReputationCount[] = [];
  const attempts = new Map<AttemptRecord, DeliveryRecord[]>();
  const changedMessages = new Map<string, { at: Date; onlyCreated: boolean }>();

  // What the history and the webhooks say of a delivery's change; a BCC recipient is never named.
  const report = (
    message: MessageDeliveries,
    row: DeliveryRecord,
    type: string,
    cause: DeliveryCause | null,
    webhook: WebhookEventType | null,
    at: Date,
    engagement: EngagementData | null = null,
  ) => {
    events.push({ emailId: row.emailId, type, at, recipient: row.kind === 'bcc' ? null : row.recipient, cause, engagement });
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
        ...(engagement ? { data: engagement } : {}),
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
    const row: DeliveryRecord = {
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
      suppressions.push({ ...suppressionOf(effects.suppression, message), email: row.recipient, emailId: row.emailId, at: t.at });
    }
    if (effects.reputation && !message.test) reputation.push({ accountId: message.accountId, stream: message.stream, at: t.at, counts: effects.reputation });
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
    const effects = observationEffects(o.observation, before);
    const row: DeliveryRecord = { ...before, [effects.stamp]: before[effects.stamp] ?? o.at };
    after.set(o.delivery, row);
    // Only the first stamps the row: a repeated open or click writes its event alone.
    if (before[effects.stamp] === null) updated.add(o.delivery);
    const engagement = o.engagement ? { ...(o.engagement.url === undefined ? {} : { url: o.engagement.url }), user_agent: o.engagement.userAgent, proxy: o.engagement.proxy } : null;
    report(message, row, effects.event, null, effects.webhook, o.at, engagement);
    if (effects.suppression && !message.test) {
      suppressions.push({ ...suppressionOf(effects.suppression, message), email: row.recipient, emailId: row.emailId, at: o.at });
    }
    if (effects.reputation && !message.test) reputation.push({ accountId: message.accountId, stream: message.stream, at: o.at, counts: effects.reputation });
  }

  const states = new Map<string, MessageAfter>();
  const stateWrites: MessageStateWrite[] = [];
  for (const [emailId, change] of changedMessages) {
    const state = messageAfter([...after.values()].filter((d) => d.emailId === emailId));
    states.set(emailId, state);
    // A new message's row is written queued; it needs writing only when its deliveries say otherwise.
    if (!change.onlyCreated || state.status !== 'queued') stateWrites.push({ emailId, at: change.at, ...state });
  }

  const accountDeltas = counterDeltasByKey(moves.map((m) => ({ key: m.account, from: m.from, to: m.to })));
  const senderDeltas = counterDeltasByKey(moves.map((m) => ({ key: m.sender, from: m.from, to: m.to })));
  const movedAccounts = [...accountDeltas].filter(([, d]) => d.active !== 0).map(([id]) => id);
  const movedSenders = [...senderDeltas].filter(([, d]) => movesSenderCounts(d)).map(([id]) => id);
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
