import { changeSendingStatus, findSendingState, makeAccountDeliveriesDue, sendingStatesToEvaluate, type Database, type SendingState } from '@mailer/db';
import { nextSendingStatus, type SendingStatus } from '@mailer/domain';
import type { Logger } from '@mailer/logger';
import { sendingStatusChanged, toSending, type SendingRepresentation } from './sending-representation';

/** Where a resumed account's messages get their jobs (the delivery queue's producer). */
export interface DueMessages {
  enqueueMany(jobs: { emailId: string; dueAt: Date; accountId: string }[], now?: Date): Promise<void>;
}

export interface SendingStatusOutcome {
  /** False when the account already was in that status: nothing was written. */
  changed: boolean;
  sending: SendingRepresentation;
}

/**
 * An operator's pause (docs/api-decisions.md, "Reputation"): the account refuses new mail and
 * its owed deliveries wait unattempted. Undefined for an unknown account.
 */
export async function pauseSending(db: Database, accountId: string, reason: string, now: Date): Promise<SendingStatusOutcome | undefined> {
  return operatorChange(db, accountId, now, 'paused', reason, false);
}

/**
 * An operator's resume of a paused (or reviewed) account: enabled again with its window
 * started afresh from now, and every waiting delivery of the account due at once
 * (makeAccountDeliveriesDue), its messages enqueued. Undefined for an unknown account.
 */
export async function resumeSending(db: Database, queue: DueMessages, accountId: string, reason: string, now: Date): Promise<SendingStatusOutcome | undefined> {
  const outcome = await operatorChange(db, accountId, now, 'enabled', reason, true);
  if (!outcome?.changed) return outcome;
  const due = await makeAccountDeliveriesDue(db, accountId, now);
  if (due.length > 0) await queue.enqueueMany(due.map((emailId) => ({ emailId, dueAt: now, accountId })), now);
  return outcome;
}

async function operatorChange(
  db: Database,
  accountId: string,
  now: Date,
  status: SendingStatus,
  reason: string,
  freshWindow: boolean,
): Promise<SendingStatusOutcome | undefined> {
  const changed = await changeSendingStatus(db, accountId, now, {
    decide: (state) => (state.status === status ? undefined : { status, reason, freshWindow }),
    event: sendingStatusChanged,
  });
  if (changed) return { changed: true, sending: toSending(changed.after) };
  const state = await findSendingState(db, accountId, now);
  return state && { changed: false, sending: toSending(state) };
}

/**
 * One reputation evaluation (docs/api-decisions.md, "Reputation"): every account with counts
 * in its window, or under review, is judged by nextSendingStatus on its state read under its
 * row's lock, and changed when the rule says so. Resolves with how many accounts changed.
 */
export async function evaluateReputation(db: Database, now: Date, logger: Logger): Promise<number> {
  const decide = (state: SendingState) => {
    const verdict = nextSendingStatus(state.status, state.window, state.thresholds);
    return verdict && { ...verdict, freshWindow: false };
  };
  let changes = 0;
  for (const state of await sendingStatesToEvaluate(db, now)) {
    if (!decide(state)) continue;
    const changed = await changeSendingStatus(db, state.accountId, now, { decide, event: sendingStatusChanged });
    if (!changed) continue;
    changes++;
    logger.warn('account sending status changed', { account_id: state.accountId, from: changed.before.status, to: changed.after.status, reason: changed.after.reason });
  }
  return changes;
}
