import { changeSendingStatus, findSendingStates, makeAccountDeliveriesDue, sendingStatesToEvaluate, type Database, type SendingState } from '@mailer/db';
import { EMAIL_TYPES, nextSendingStatus, type EmailType, type SendingStatus } from '@mailer/domain';
import type { Logger } from '@mailer/logger';
import { sendingStatusChanged, toSending, type SendingRepresentation } from './sending-representation';

/** Where a resumed account's messages get their jobs (the delivery queue's producer). */
export interface DueMessages {
  enqueueMany(jobs: { emailId: string; dueAt: Date; accountId: string }[], now?: Date): Promise<void>;
}

export interface SendingStatusOutcome {
  /** False when every stream asked already was in that status: nothing was written. */
  changed: boolean;
  /** The first stream's status as it now is (the transactional stream's unless only broadcast was asked). */
  sending: SendingRepresentation;
  /** Each stream asked, as it now is. */
  streams: Partial<Record<EmailType, SendingRepresentation>>;
}

/**
 * An operator's pause (docs/api-decisions.md, "Reputation", "Streams") of the streams given,
 * both unless told: they refuse new mail and their owed deliveries wait unattempted. Undefined
 * for an unknown account.
 */
export async function pauseSending(
  db: Database,
  accountId: string,
  reason: string,
  now: Date,
  streams: readonly EmailType[] = EMAIL_TYPES,
): Promise<SendingStatusOutcome | undefined> {
  return operatorChange(db, accountId, streams, now, 'paused', reason, false);
}

/**
 * An operator's resume of paused (or reviewed) streams, both unless told: enabled again with
 * their windows started afresh from now, and every waiting delivery of their messages due at
 * once (makeAccountDeliveriesDue), the messages enqueued. Undefined for an unknown account.
 */
export async function resumeSending(
  db: Database,
  queue: DueMessages,
  accountId: string,
  reason: string,
  now: Date,
  streams: readonly EmailType[] = EMAIL_TYPES,
): Promise<SendingStatusOutcome | undefined> {
  const outcome = await operatorChange(db, accountId, streams, now, 'enabled', reason, true);
  if (!outcome?.changed) return outcome;
  const due = await makeAccountDeliveriesDue(db, accountId, streams, now);
  if (due.length > 0) await queue.enqueueMany(due.map((emailId) => ({ emailId, dueAt: now, accountId })), now);
  return outcome;
}

async function operatorChange(
  db: Database,
  accountId: string,
  streams: readonly EmailType[],
  now: Date,
  status: SendingStatus,
  reason: string,
  freshWindow: boolean,
): Promise<SendingStatusOutcome | undefined> {
  let changed = false;
  for (const stream of streams) {
    const change = await changeSendingStatus(db, accountId, stream, now, {
      decide: (state) => (state.status === status ? undefined : { status, reason, freshWindow }),
      event: sendingStatusChanged,
    });
    changed ||= change !== undefined;
  }
  const states = (await findSendingStates(db, accountId, now)).filter((s) => streams.includes(s.stream));
  if (states.length === 0) return undefined;
  const shown = Object.fromEntries(states.map((s) => [s.stream, toSending(s)])) as Partial<Record<EmailType, SendingRepresentation>>;
  return { changed, sending: shown[streams[0]!] ?? toSending(states[0]!), streams: shown };
}

/**
 * One reputation evaluation (docs/api-decisions.md, "Reputation"): every stream with counts in
 * its window, or under review, is judged by nextSendingStatus on its state read under its
 * row's lock, and changed when the rule says so. Resolves with how many streams changed.
 */
export async function evaluateReputation(db: Database, now: Date, logger: Logger): Promise<number> {
  const decide = (state: SendingState) => {
    const verdict = nextSendingStatus(state.status, state.window, state.thresholds);
    return verdict && { ...verdict, freshWindow: false };
  };
  let changes = 0;
  for (const state of await sendingStatesToEvaluate(db, now)) {
    if (!decide(state)) continue;
    const changed = await changeSendingStatus(db, state.accountId, state.stream, now, { decide, event: sendingStatusChanged });
    if (!changed) continue;
    changes++;
    logger.warn('account sending status changed', {
      account_id: state.accountId,
      stream: state.stream,
      from: changed.before.status,
      to: changed.after.status,
      reason: changed.after.reason,
    });
  }
  return changes;
}
