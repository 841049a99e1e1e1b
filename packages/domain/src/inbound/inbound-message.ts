/** An attachment as a received message lists it; `part` is its position among mailparser's attachments, for reading its bytes again. */
export interface InboundAttachmentMeta {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  part: number;
}

/** What was read from a received message once, before its 250 (docs/api-decisions.md, "Inbound mail"). */
export interface InboundMessage {
  from: string | null;
  to: string[];
  cc: string[];
  reply_to: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  headers: { name: string; value: string }[];
  attachments: InboundAttachmentMeta[];
}
