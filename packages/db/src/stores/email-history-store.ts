import { and, asc, eq } from 'drizzle-orm';
import { isIdOf } from '@mailer/domain';
import type { DbOrTx } from '../database';
import { attachments, attempts, deliveries, emails, events } from '../schema/emails';
import { after, newestFirst } from './keyset';

/** The columns a message's public representation is made of; never its body. */
const summaryColumns = {
  id: emails.id,
  status: emails.status,
  type: emails.type,
  fromEmail: emails.fromEmail,
  fromName: emails.fromName,
  to: emails.to,
  cc: emails.cc,
  bccCount: emails.bccCount,
  subject: emails.subject,
  cause: emails.cause,
  createdAt: emails.createdAt,
  updatedAt: emails.updatedAt,
  completedAt: emails.completedAt,
};

export type EmailSummary = Pick<
  typeof emails.$inferSelect,
  'id' | 'status' | 'type' | 'fromEmail' | 'fromName' | 'to' | 'cc' | 'bccCount' | 'subject' | 'cause' | 'createdAt' | 'updatedAt' | 'completedAt'
>;

/** One page of the account's messages, newest first; the caller asks for `limit + 1` rows. */
export async function listEmails(
  db: DbOrTx,
  accountId: string,
  position: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<EmailSummary[]> {
  return db
    .select(summaryColumns)
    .from(emails)
    .where(and(eq(emails.accountId, accountId), after(emails.createdAt, emails.id, position)))
    .orderBy(...newestFirst(emails.createdAt, emails.id))
    .limit(limit);
}

export interface EmailDetail {
  email: EmailSummary;
  deliveries: Pick<typeof deliveries.$inferSelect, 'recipient' | 'kind' | 'status' | 'attemptCount' | 'cause' | 'updatedAt'>[];
  attempts: Omit<typeof attempts.$inferSelect, 'id' | 'emailId' | 'mxHost'>[];
  events: Pick<typeof events.$inferSelect, 'type' | 'at' | 'recipient' | 'cause'>[];
  attachments: Pick<typeof attachments.$inferSelect, 'filename' | 'contentType' | 'contentId' | 'size'>[];
}

/**
 * The account's message with its deliveries, attempts, events and attachment metadata,
 * or undefined when the id is malformed, unknown or another account's (all answered as
 * email_not_found). Bodies, attachment bytes and MX hosts are not read.
 */
export async function findEmailDetail(db: DbOrTx, accountId: string, id: string): Promise<EmailDetail | undefined> {
  if (!isIdOf('email', id)) return undefined;
  const [email] = await db
    .select(summaryColumns)
    .from(emails)
    .where(and(eq(emails.id, id), eq(emails.accountId, accountId)))
    .limit(1);
  if (!email) return undefined;
  const [deliveryRows, attemptRows, eventRows, attachmentRows] = await Promise.all([
    db
      .select({
        recipient: deliveries.recipient,
        kind: deliveries.kind,
        status: deliveries.status,
        attemptCount: deliveries.attemptCount,
        cause: deliveries.cause,
        updatedAt: deliveries.updatedAt,
      })
      .from(deliveries)
      .where(eq(deliveries.emailId, id))
      .orderBy(asc(deliveries.createdAt), asc(deliveries.recipient)),
    db
      .select({
        number: attempts.number,
        startedAt: attempts.startedAt,
        endedAt: attempts.endedAt,
        outcome: attempts.outcome,
        recipients: attempts.recipients,
        bccRecipients: attempts.bccRecipients,
        tls: attempts.tls,
        cause: attempts.cause,
      })
      .from(attempts)
      .where(eq(attempts.emailId, id))
      .orderBy(asc(attempts.number), asc(attempts.startedAt)),
    db
      .select({ type: events.type, at: events.at, recipient: events.recipient, cause: events.cause })
      .from(events)
      .where(eq(events.emailId, id))
      .orderBy(asc(events.at), asc(events.id)),
    db
      .select({ filename: attachments.filename, contentType: attachments.contentType, contentId: attachments.contentId, size: attachments.size })
      .from(attachments)
      .where(eq(attachments.emailId, id))
      .orderBy(asc(attachments.position)),
  ]);
  return { email, deliveries: deliveryRows, attempts: attemptRows, events: eventRows, attachments: attachmentRows };
}
