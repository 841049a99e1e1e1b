import { AppError, parseMailbox } from '@mailer/domain';

export const suppressionNotFound = () => new AppError('suppression_not_found', 'This address is not on the suppression list.');

/** The key of the address in the path; an address that cannot be a recipient is on no list. */
export function suppressionKeyOf(param: string): string {
  const mailbox = parseMailbox(param);
  if (!mailbox) throw suppressionNotFound();
  return mailbox.key;
}
