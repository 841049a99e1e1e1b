// What a delivery sends: a message's content, its attachments and the DKIM keys it is signed with.
export { loadAttachments, loadMessageContents, type AttachmentContent, type DkimSigningKey, type MessageContent } from '@mailer/db';
