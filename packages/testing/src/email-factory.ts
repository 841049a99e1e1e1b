import { randomBytes } from 'node:crypto';
import { collectRecipients, firstDueAt, newId, parseMailbox, type EmailType, type Mailbox } from '@mailer/domain';
import { admissionStatements, inTransaction, lockAccountIntake, usageFigures, usageFiguresFrom, type AcceptedEmail, type Database } from '@mailer/db';

/**
 * A queued message written through intake's own statements (the intake lock, then the
 * message, its deliveries, usage and counters), without the HTTP request, idempotency and
 * plan checks around them: for delivery tests that need a message with a given age, content
 * or attachments. The caller enqueues the job.
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
  replyTo?: string[];
  headers?: { name: string; value: string }[];
  tags?: Record<string, string>;
  /** Deliveries are due then (or at createdAt when earlier). */
  scheduledAt?: Date;
  /** A test message (docs/api-decisions.md, "Test mode"). */
  test?: boolean;
  /** Its stream (docs/api-decisions.md, "Streams"); transactional unless given. */
  type?: EmailType;
  /** Sent with `unsubscribe: true` (docs/api-decisions.md, "Unsubscribe"). */
  unsubscribe?: boolean;
  /** Opens and clicks as intake decided them (docs/api-decisions.md, "Opens and clicks"); none unless given. */
  track?: { opens: boolean; clicks: boolean };
  /** With clicks: the HTML part's links, as intake keeps them (trackedLinks of @mailer/message). */
  trackedLinks?: string[];
  /** Recipients on the account's suppression list: their deliveries are created failed. */
  suppressed?: string[];
}

export interface QueuedEmail {
  id: string;
  createdAt: Date;
  deliveries: { id: string; recipient: string; kind: 'to' | 'cc' | 'bcc' }[];
}

const mailboxes = (addresses: string[] = []): Mailbox[] =>
  addresses.map((address) => {
    const mailbox = parseMailbox(address);
    if (!mailbox) throw new Error(`not an address: ${address}`);
    return mailbox;
  });

export async function insertQueuedEmail(db: Database, input: QueuedEmailInput): Promise<QueuedEmail> {
  const id = newId('email');
  const createdAt = input.createdAt ?? new Date();
  const recipients = collectRecipients({ to: mailboxes(input.to), cc: mailboxes(input.cc), bcc: mailboxes(input.bcc) });
  const email: AcceptedEmail = {
    id,
    accountId: input.accountId,
    senderId: input.senderId,
    domainId: input.domainId,
    fromEmail: input.from,
    fromName: input.fromName ?? null,
    type: input.type ?? 'transactional',
    subject: input.subject ?? 'Test message',
    to: recipients.to,
    cc: recipients.cc,
    bccCount: recipients.bccCount,
    text: input.text === undefined ? 'Hello from the delivery tests.' : input.text,
    html: input.html ?? null,
    messageIdHeader: `<${randomBytes(12).toString('hex')}@${input.from.split('@')[1]}>`,
    replyTo: input.replyTo ?? [],
    displayNames: {},
    headers: input.headers ?? [],
    tags: input.tags ?? {},
    scheduledAt: input.scheduledAt ?? null,
    test: input.test ?? false,
    unsubscribe: input.unsubscribe ?? false,
    track: input.track ?? { opens: false, clicks: false },
    trackedLinks: input.trackedLinks ?? null,
    dueAt: firstDueAt(input.scheduledAt ?? null, createdAt),
    recipients: recipients.recipients.map((r) => ({ id: newId('delivery'), ...r, suppressed: input.suppressed?.includes(r.address) ?? false })),
    attachments: (input.attachments ?? []).map((a) => ({ ...a, contentId: a.contentId ?? null })),
  };
  await inTransaction(db, async (tx) => {
    const { usage } = await tx.send({ lock: lockAccountIntake(tx, input.accountId), usage: usageFigures(tx, input.accountId, createdAt, []) });
    const figures = usageFiguresFrom(usage, []);
    const usageAt = figures.lastAcceptedAt && figures.lastAcceptedAt > createdAt ? figures.lastAcceptedAt : createdAt;
    await tx.commit(...admissionStatements(tx, { accountId: input.accountId, now: createdAt, usageAt, admitted: [email], totalBefore: figures.total }));
  });
  return { id, createdAt, deliveries: email.recipients.map((r) => ({ id: r.id, recipient: r.address, kind: r.kind })) };
}
