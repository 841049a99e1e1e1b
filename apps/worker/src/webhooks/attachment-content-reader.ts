import { findInboundRaw, type LeasedWebhook } from '@mailer/operations';
import { attachmentsWithContent, webhookCarriesAttachmentContent, type RecordedWebhookEvent } from '@mailer/domain';
import { inboundAttachmentContents } from '@mailer/message';
import type { WorkerDependencies } from '../container';

/**
 * Gives a leased `email.received` event the attachment bytes its endpoint's format carries
 * (docs/api-decisions.md, "Inbound mail"): those attachmentsWithContent takes, read again from the
 * stored raw message, which never changes, so every retry sends the same bytes. Other events,
 * formats, messages without such attachments and purged messages are returned as they are.
 * One raw message is parsed at a time per daemon, so however many requests are in flight the
 * parsing holds one message's bytes (at most the listener's 25 MiB) at once.
 */
export function attachmentContentReader(deps: Pick<WorkerDependencies, 'db'>): (leased: LeasedWebhook) => Promise<RecordedWebhookEvent> {
  let reading: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const result = reading.then(work, work);
    reading = result.catch(() => undefined);
    return result;
  };

  return async ({ event, format, accountId, inboundEmailId }) => {
    if (event.type !== 'email.received' || !event.inbound || inboundEmailId === null || !webhookCarriesAttachmentContent(format)) return event;
    const wanted = attachmentsWithContent(event.inbound.attachments);
    if (wanted.length === 0) return event;
    const contents = await oneAtATime(async () => {
      const raw = await findInboundRaw(deps.db, accountId, inboundEmailId);
      return raw ? await inboundAttachmentContents(raw) : [];
    });
    const attachmentContents = new Map(wanted.flatMap((a) => (contents[a.part] ? [[a.id, contents[a.part]!] as const] : [])));
    return { ...event, attachmentContents };
  };
}
