import { createSender, type Database, type DomainRow, type SenderRecord } from '@mailer/db';
import { AppError, mailboxBelongsTo, validationError, type Mailbox, type TransportSecurityPolicy } from '@mailer/domain';
import { domainNotFound } from '../domains/domain-not-found';

/**
 * Creates a sender identity under the account's domain (POST /v1/domains/{id}/senders and the
 * console). Throws validation_error when the address is not of the domain, domain_not_found when
 * the domain was deleted meanwhile, and sender_already_exists for an active sender of that address.
 */
export async function addSender(
  db: Database,
  domain: DomainRow,
  input: { email: Mailbox; displayName: string | null; transportSecurityPolicy: TransportSecurityPolicy },
  now: Date,
): Promise<SenderRecord> {
  if (!mailboxBelongsTo(input.email, domain.name)) {
    throw validationError([{ path: 'email', message: `the domain part must be ${domain.name}, the domain of this route` }]);
  }
  const result = await createSender(db, {
    accountId: domain.accountId,
    domainId: domain.id,
    email: input.email.address,
    emailKey: input.email.key,
    displayName: input.displayName,
    transportSecurityPolicy: input.transportSecurityPolicy,
    now,
  });
  if (result.outcome === 'domain_gone') throw domainNotFound();
  if (result.outcome === 'already_exists') {
    throw new AppError('sender_already_exists', `An active sender ${input.email.address} already exists under this domain.`, {
      details: [{ path: 'email', message: 'already an active sender of this domain' }],
    });
  }
  return result.sender;
}
