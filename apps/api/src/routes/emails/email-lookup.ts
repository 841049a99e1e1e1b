import { cancelEmail, findEmailDetail, type EmailDetail, type EmailOwner } from '@mailer/db';
import { AppError } from '@mailer/domain';
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
