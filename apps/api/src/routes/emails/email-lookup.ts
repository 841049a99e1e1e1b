import { cancelEmail, findEmailDetail, rescheduleEmail, type EmailDetail, type EmailOwner } from '@mailer/operations';
import { AppError, scheduleProblem, validationError } from '@mailer/domain';
import type { ApiDependencies } from '../../container';

export const emailNotFound = () => new AppError('email_not_found', 'No such email in this account.');

/** The owner's message, or 404 email_not_found (/v1 and the adapters alike). */
export async function requireEmailDetail(deps: ApiDependencies, owner: EmailOwner, id: string): Promise<EmailDetail> {
  const detail = await findEmailDetail(deps.db, owner, id);
  if (!detail) throw emailNotFound();
  return detail;
}

/** Cancels the owner's message, or refuses: 404 email_not_found, 409 email_not_cancelable (docs/api-decisions.md, "Scheduled send and cancel"). */
export async function cancelOrRefuse(deps: ApiDependencies, owner: EmailOwner, id: string, checkRequest?: () => void): Promise<void> {
  const outcome = await cancelEmail(deps.db, owner, id, deps.now(), checkRequest);
  if (outcome === 'not_found') throw emailNotFound();
  if (outcome === 'not_cancelable') {
    throw new AppError('email_not_cancelable', 'A delivery of this message has started (or none is left waiting); it can no longer be canceled.');
  }
}

/**
 * Gives the owner's message a new scheduled time (`body` parsed once the message is found, and
 * held to intake's rules: at most 7 days ahead), or refuses: 404 email_not_found, 409
 * email_not_reschedulable (docs/api-decisions.md, "Scheduled send and cancel"). The job owed at
 * the new time is enqueued; with Redis away the change stands and the reconciler adds the job.
 */
export async function rescheduleOrRefuse(deps: ApiDependencies, owner: EmailOwner, id: string, body: () => { scheduled_at: Date }): Promise<void> {
  const now = deps.now();
  const requestedAt = () => {
    const { scheduled_at } = body();
    const problem = scheduleProblem(scheduled_at, now);
    if (problem) throw validationError([{ path: 'scheduled_at', message: problem }]);
    return scheduled_at;
  };
  const outcome = await rescheduleEmail(deps.db, owner, id, now, requestedAt);
  if (outcome.kind === 'not_found') throw emailNotFound();
  if (outcome.kind === 'not_reschedulable') {
    throw new AppError('email_not_reschedulable', 'A delivery of this message has started (or none is left waiting); it can no longer be rescheduled.');
  }
  await deps.deliveryQueue.enqueue({ emailId: id, dueAt: outcome.dueAt, accountId: outcome.accountId }, now).catch((error: unknown) => {
    deps.logger.warn('delivery job not enqueued; the reconciler will add it', { email_id: id, error: (error as Error).message });
  });
}
