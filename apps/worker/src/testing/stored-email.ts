import type { Database, EmailAttachment, EmailAttempt, EmailDelivery, EmailEvent, EmailSummary, Row, SenderRow } from '@mailer/db';

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
  id: r.id,
  accountId: r.account_id,
  senderId: r.sender_id,
  domainId: r.domain_id,
  fromEmail: r.from_email,
  fromName: r.from_name,
  type: r.type,
  subject: r.subject,
  to: r.to,
  cc: r.cc,
  bccCount: r.bcc_count,
  textBody: r.text_body,
  htmlBody: r.html_body,
  messageIdHeader: r.message_id_header,
  status: r.status,
  cause: r.cause,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  completedAt: r.completed_at,
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
  id: r.id,
  emailId: r.email_id,
  accountId: r.account_id,
  recipient: r.recipient,
  recipientDomain: r.recipient_domain,
  kind: r.kind,
  status: r.status,
  attemptCount: r.attempt_count,
  cause: r.cause,
  nextAttemptAt: r.next_attempt_at,
  leaseExpiresAt: r.lease_expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface AttemptRow extends EmailAttempt {
  id: string;
  emailId: string;
  mxHost: string | null;
}

const toAttempt = (r: Row): AttemptRow => ({
  id: r.id,
  emailId: r.email_id,
  number: r.number,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  outcome: r.outcome,
  recipients: r.recipients,
  bccRecipients: r.bcc_recipients,
  tls: r.tls,
  cause: r.cause,
  mxHost: r.mx_host,
});

export interface EventRow extends EmailEvent {
  id: number;
  emailId: string;
}

const toEvent = (r: Row): EventRow => ({
  // A bigint column: the driver hands it over as a string.
  id: Number(r.id),
  emailId: r.email_id,
  type: r.type,
  at: r.at,
  recipient: r.recipient,
  cause: r.cause,
});

export interface AttachmentRow extends EmailAttachment {
  emailId: string;
  position: number;
  content: Buffer | null;
}

const toAttachment = (r: Row): AttachmentRow => ({
  emailId: r.email_id,
  position: r.position,
  filename: r.filename,
  contentType: r.content_type,
  contentId: r.content_id,
  size: r.size,
  content: r.content,
});

const toSender = (r: Row): SenderRow => ({
  id: r.id,
  accountId: r.account_id,
  domainId: r.domain_id,
  email: r.email,
  emailKey: r.email_key,
  displayName: r.display_name,
  transportSecurityPolicy: r.transport_security_policy,
  configuredState: r.configured_state,
  lastUsedAt: r.last_used_at,
  acceptedCount: r.accepted_count,
  bouncedCount: r.bounced_count,
  failedCount: r.failed_count,
  deferredCount: r.deferred_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

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
    sender: toSender(sender[0]!),
    deliveries: deliveries.map(toDelivery),
    attempts: attempts.map(toAttempt),
    events: events.map(toEvent),
    attachments: attachments.map(toAttachment),
  };
}
