import type { AttachmentContent, DeliveryContext, MessageContent } from '@mailer/operations';
import { formatMailbox } from '@mailer/domain';
import { buildMime, plainAlternative, type OutgoingMessage } from '@mailer/message';
import type { DkimSigner, SigningDomain } from './dkim-signer';
import { perDeliveryContent, type DeliveryCopy } from './per-delivery-content';

/** What to build and how to sign it; plain data, so that it can cross to a signing thread. */
export interface CompositionRequest {
  message: OutgoingMessage;
  domain: SigningDomain;
}

/**
 * The message as every recipient domain receives it: the From header carries the display
 * name intake stored (the request's, else the sender's), BCC recipients appear nowhere in
 * it, and it is signed with `d=` the sending domain.
 */
export function compositionRequest(context: DeliveryContext, content: MessageContent, attachments: AttachmentContent[]): CompositionRequest {
  // To, Cc and Reply-To carry the display names the request gave (docs/api-decisions.md, "Emails").
  const named = (addresses: string[]) => addresses.map((address) => formatMailbox(address, content.displayNames[address] ?? null));
  return {
    message: {
      from: { address: context.email.fromEmail, name: context.email.fromName },
      to: named(content.to),
      cc: named(content.cc),
      replyTo: named(content.replyTo),
      headers: content.headers,
      subject: content.subject,
      text: content.text,
      html: content.html,
      attachments,
      messageId: content.messageId,
      date: context.email.createdAt,
    },
    domain: { name: context.domain.name, keys: content.signingKeys },
  };
}

/** Built and DKIM-signed once per message, whatever the number of recipient domains. */
export async function composeSignedMessage(request: CompositionRequest, dkim: DkimSigner): Promise<Buffer> {
  return dkim.sign(buildMime(request.message), request.domain);
}

/**
 * One copy per entry of `copies`, each with its header fields added (perDeliveryContent) and
 * then DKIM-signed, so that the signatures cover them: a message whose deliveries each get their
 * own fields (perDeliveryHeaders) or HTML part (perDeliveryHtml). Built once for the copies that
 * keep the message's HTML; a copy with its own HTML is built with it, its plain part still the
 * message's (an HTML-only message's text alternative is made from the HTML as given).
 */
export async function composeSignedCopies(request: CompositionRequest, copies: readonly DeliveryCopy[], dkim: DkimSigner): Promise<Buffer[]> {
  let built: Buffer | undefined;
  const { message } = request;
  const text = message.text ?? (message.html ? plainAlternative(message.html) : null);
  const mime = (copy: DeliveryCopy) => (copy.html === undefined ? (built ??= buildMime(message)) : buildMime({ ...message, text, html: copy.html }));
  return Promise.all(copies.map((copy) => dkim.sign(perDeliveryContent(mime(copy), copy.fields), request.domain)));
}
