import { randomBytes } from 'node:crypto';
import { newId } from '@mailer/domain';
import { attachments, deliveries, emails, events, type Database } from '@mailer/db';

/**
 * A queued message written straight to the database exactly as intake writes one: the
 * email row, its attachments, one queued delivery per unique recipient due now and the
 * `queued` event. For delivery tests that do not go through POST /v1/emails; the caller
 * enqueues the job.
 */
export interface QueuedEmailInput {
  accountId: string;
  senderId: string;
  domainId: string;
  from: string;
  /** The From display name (intake stores the request's, else the sender's). */
  fromName?: string | null;
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject?: string;
  text?: string | null;
  html?: string | null;
  attachments?: { filename: string; contentType: string; content: Buffer; contentId?: string }[];
  createdAt?: Date;
}

export interface QueuedEmail {
  id: string;
  createdAt: Date;
  deliveries: { id: string; recipient: string; kind: 'to' | 'cc' | 'bcc' }[];
}

const normalize = (address: string) => {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`;
};

export async function insertQueuedEmail(db: Database, input: QueuedEmailInput): Promise<QueuedEmail> {
  const id = newId('email');
  const createdAt = input.createdAt ?? new Date();
  const to = input.to.map(normalize);
  const cc = (input.cc ?? []).map(normalize);
  const seen = new Set<string>();
  const recipients: { recipient: string; kind: 'to' | 'cc' | 'bcc' }[] = [];
  for (const [kind, list] of [['to', to], ['cc', cc], ['bcc', (input.bcc ?? []).map(normalize)]] as const) {
    for (const recipient of list) {
      if (seen.has(recipient.toLowerCase())) continue;
      seen.add(recipient.toLowerCase());
      recipients.push({ recipient, kind });
    }
  }
  const rows = recipients.map((r) => ({ id: newId('delivery'), ...r }));
  await db.transaction(async (tx) => {
    await tx.insert(emails).values({
      id,
      accountId: input.accountId,
      senderId: input.senderId,
      domainId: input.domainId,
      fromEmail: input.from,
      fromName: input.fromName ?? null,
      subject: input.subject ?? 'Test message',
      to,
      cc,
      bccCount: rows.filter((r) => r.kind === 'bcc').length,
      textBody: input.text === undefined ? 'Hello from the delivery tests.' : input.text,
      htmlBody: input.html ?? null,
      messageIdHeader: `<${randomBytes(12).toString('hex')}@${input.from.split('@')[1]}>`,
      createdAt,
      updatedAt: createdAt,
    });
    if (input.attachments?.length) {
      await tx.insert(attachments).values(
        input.attachments.map((a, position) => ({
          emailId: id,
          position,
          filename: a.filename,
          contentType: a.contentType,
          contentId: a.contentId ?? null,
          size: a.content.length,
          content: a.content,
        })),
      );
    }
    await tx.insert(deliveries).values(
      rows.map((r) => ({
        id: r.id,
        emailId: id,
        accountId: input.accountId,
        recipient: r.recipient,
        recipientDomain: r.recipient.split('@')[1]!,
        kind: r.kind,
        status: 'queued' as const,
        nextAttemptAt: createdAt,
        createdAt,
        updatedAt: createdAt,
      })),
    );
    await tx.insert(events).values({ emailId: id, type: 'queued', at: createdAt });
  });
  return { id, createdAt, deliveries: rows };
}
