import {
  toEmailAttachment,
  toEmailAttempt,
  toEmailDelivery,
  toEmailEvent,
  toEmailSummary,
  toSenderRow,
  type Database,
  type EmailAttachment,
  type EmailAttempt,
  type EmailDelivery,
  type EmailEvent,
  type EmailSummary,
  type Row,
  type SenderRow,
} from '@mailer/db';

/**
 * A message's rows as the database holds them, every column under its camelCase name, for
 * tests to check what delivery wrote. Instants are Dates, jsonb columns parsed, bytea Buffers.
 */
export interface StoredEmail {
  email: EmailRow;
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  events: EventRow[];
  attachments: AttachmentRow[];
  sender: SenderRow;
}

export interface EmailRow extends EmailSummary {
  accountId: string;
  senderId: string;
  domainId: string;
  textBody: string | null;
  htmlBody: string | null;
  messageIdHeader: string;
  contentPurgedAt: Date | null;
}

const toEmail = (r: Row): EmailRow => ({
  ...toEmailSummary(r),
  accountId: r.account_id,
  senderId: r.sender_id,
  domainId: r.domain_id,
  textBody: r.text_body,
  htmlBody: r.html_body,
  messageIdHeader: r.message_id_header,
  contentPurgedAt: r.content_purged_at,
});

export interface DeliveryRow extends EmailDelivery {
  id: string;
  emailId: string;
  accountId: string;
  recipientDomain: string;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
  createdAt: Date;
}

const toDelivery = (r: Row): DeliveryRow => ({
  ...toEmailDelivery(r),
  id: r.id,
  emailId: r.email_id,
  accountId: r.account_id,
  recipientDomain: r.recipient_domain,
  nextAttemptAt: r.next_attempt_at,
  leaseExpiresAt: r.lease_expires_at,
  createdAt: r.created_at,
});

export interface AttemptRow extends EmailAttempt {
  id: string;
  emailId: string;
  mxHost: string | null;
}

const toAttempt = (r: Row): AttemptRow => ({ ...toEmailAttempt(r), id: r.id, emailId: r.email_id, mxHost: r.mx_host });

export interface EventRow extends EmailEvent {
  id: number;
  emailId: string;
}

const toEvent = (r: Row): EventRow => ({
  ...toEmailEvent(r),
  // A bigint column: the driver hands it over as a string.
  id: Number(r.id),
  emailId: r.email_id,
});

export interface AttachmentRow extends EmailAttachment {
  emailId: string;
  position: number;
  content: Buffer | null;
}

const toAttachment = (r: Row): AttachmentRow => ({ ...toEmailAttachment(r), emailId: r.email_id, position: r.position, content: r.content });


/** Deliveries by recipient, attempts by number, events in the order they happened, attachments by position. */
export async function readStoredEmail(db: Database, emailId: string): Promise<StoredEmail> {
  const [email] = await db`select * from emails where id = ${emailId}`;
  if (!email) throw new Error(`no message ${emailId}`);
  const [sender, deliveries, attempts, events, attachments] = await Promise.all([
    db`select * from senders where id = ${email.sender_id}`,
    db`select * from deliveries where email_id = ${emailId} order by recipient`,
    db`select * from attempts where email_id = ${emailId} order by number`,
    db`select * from events where email_id = ${emailId} order by at, id`,
    db`select * from attachments where email_id = ${emailId} order by position`,
  ]);
  return {
    email: toEmail(email),
    sender: toSenderRow(sender[0]!),
    deliveries: deliveries.map(toDelivery),
    attempts: attempts.map(toAttempt),
    events: events.map(toEvent),
    attachments: attachments.map(toAttachment),
  };
}
