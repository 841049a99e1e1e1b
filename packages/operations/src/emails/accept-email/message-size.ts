import { findSendingIdentities, type Database } from '@mailer/db';
import { AppError, DISPLAY_NAME_MAX_BYTES, MIME_MAX_BYTES, mimeSizeNeedsMeasuring, newId, type EmailDraft } from '@mailer/domain';
import { buildMime } from '@mailer/message';

/**
 * 422 message_too_large when the message as the daemon will build it would pass 15 MiB.
 * The exact size needs the same build the daemon does (buildMime); it runs only when a
 * safe upper bound of the size passes the limit, i.e. for messages with large attachments.
 */
export async function assertMessageSize(deps: { db: Database; now: () => Date }, accountId: string, draft: EmailDraft, path = '(message)'): Promise<void> {
  const message = {
    fromAddress: draft.from.mailbox.address,
    // Without a display name of its own the message gets the sender's: assume the longest.
    displayNameBytes: draft.from.displayName ? Buffer.byteLength(draft.from.displayName) : DISPLAY_NAME_MAX_BYTES,
    subject: draft.subject,
    to: draft.recipients.to,
    cc: draft.recipients.cc,
    replyTo: draft.replyTo,
    extraHeaders: draft.headers,
    text: draft.text,
    html: draft.html,
    attachments: draft.attachments.map((a) => ({ ...a, size: a.content.length })),
  };
  if (!mimeSizeNeedsMeasuring(message)) return;
  let name = draft.from.displayName;
  if (!name) [{ displayName: name = null } = { displayName: null }] = await findSendingIdentities(deps.db, accountId, [draft.from.mailbox.key]);
  const mime = buildMime({
    from: { address: draft.from.mailbox.address, name },
    to: draft.recipients.to,
    cc: draft.recipients.cc,
    subject: draft.subject,
    text: draft.text,
    html: draft.html,
    attachments: draft.attachments,
    replyTo: draft.replyTo,
    headers: draft.headers,
    messageId: `<${newId('email')}@${draft.from.mailbox.domain}>`,
    date: deps.now(),
  });
  if (mime.length > MIME_MAX_BYTES) {
    throw new AppError('message_too_large', `The message would be ${mime.length} bytes as MIME; at most ${MIME_MAX_BYTES} (15 MiB) are allowed.`, {
      details: [{ path, message: `${mime.length} bytes as built for delivery; the limit is ${MIME_MAX_BYTES}` }],
    });
  }
}
