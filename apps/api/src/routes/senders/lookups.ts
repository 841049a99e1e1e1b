import { AppError } from '@mailer/domain';
import { findSender, type Queryable, type SenderRecord } from '@mailer/operations';
import type { AuthenticatedKey } from '../../http/auth';

/** The caller's active sender, or 404 sender_not_found for a malformed, unknown, deleted or foreign id. */
export async function requireSender(db: Queryable, key: AuthenticatedKey, id: string): Promise<SenderRecord> {
  const sender = await findSender(db, key.accountId, id);
  if (!sender) throw senderNotFound();
  return sender;
}

export const senderNotFound = () => new AppError('sender_not_found', 'No sender with this id exists in this account.');
