import { findInboundRaw } from '@mailer/operations';
import { AppError } from '@mailer/domain';
import { inboundAttachmentContent } from '@mailer/message';
import { defineRoute } from '../../http/route';
import { inboundEmailNotFound, requireInboundEmail } from './inbound-lookup';

const attachmentNotFound = () => new AppError('inbound_attachment_not_found', 'The message has no attachment with this id.');

export const getInboundAttachmentRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/emails/:id/attachments/:attachment_id',
  operationId: 'getInboundAttachment',
  tag: 'inbound',
  summary: "An attachment's bytes, decoded, with its content type.",
  description: 'Read again from the stored raw message.',
  auth: { kind: 'management', scope: 'inbound:read' },
  errors: ['inbound_email_not_found', 'inbound_attachment_not_found'],
  responses: { 200: { description: 'The attachment.', contentType: 'application/octet-stream' } },
  async handle({ res, deps, key, params }) {
    const email = await requireInboundEmail(deps.db, key.accountId, params.id!);
    const meta = email.message.attachments.find((a) => a.id === params.attachment_id);
    if (!meta) throw attachmentNotFound();
    const raw = await findInboundRaw(deps.db, key.accountId, email.id);
    if (!raw) throw inboundEmailNotFound();
    const content = await inboundAttachmentContent(raw, meta.part);
    if (!content) throw attachmentNotFound();
    res.statusCode = 200;
    res.setHeader('Content-Type', meta.content_type);
    res.setHeader('Content-Length', content.length);
    // Never rendered by a browser as a page of the API's origin.
    res.setHeader('Content-Disposition', 'attachment');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(content);
  },
});
