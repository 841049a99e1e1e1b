import { effectiveSenderState, type SenderConfiguredState } from '../senders/sender-state';
import type { EmailType } from './email-limits';
import type { ExtraHeader } from './extra-headers';
import type { FromField } from './from-address';
import type { RecipientSet } from './recipients';
import type { TemplateReference } from '../templates/template-fields';

export interface DraftAttachment {
  filename: string;
  contentType: string;
  /** Makes the part inline, referenced from the HTML as `cid:<contentId>`. */
  contentId: string | null;
  content: Buffer;
}

/** A message's own `track`: each field null when the request left it to the domain. */
export interface MessageTracking {
  opens: boolean | null;
  clicks: boolean | null;
}

/** A POST /v1/emails body once every field rule has passed: normalized, decoded, deduplicated. */
export interface EmailDraft {
  from: FromField;
  type: EmailType;
  /** Each delivery carries the List-Unsubscribe headers, as a broadcast message's do (docs/api-decisions.md, "Unsubscribe"). */
  unsubscribe: boolean;
  /** Opens and clicks for this message (docs/api-decisions.md, "Opens and clicks"); null: the domain's setting. */
  track: MessageTracking;
  subject: string;
  text: string | null;
  html: string | null;
  recipients: RecipientSet;
  attachments: DraftAttachment[];
  /** Normalized addresses for the Reply-To header (none: no header). */
  replyTo: string[];
  /** Display names the request gave to, cc and reply_to addresses, by normalized address (the first one given wins). */
  displayNames: Record<string, string>;
  headers: ExtraHeader[];
  tags: Record<string, string>;
  /** As the request gave it; deliveries are due then (scheduledDue), or at once when null. */
  scheduledAt: Date | null;
  /** The template version the content was rendered from at intake; absent or null for a message given its content. */
  template?: { id: string; version: number } | null;
}

/** The template a message is to be rendered from at intake, and its variables (docs/api-decisions.md, "Templates"). */
export interface DraftTemplate {
  reference: TemplateReference;
  variables: Record<string, unknown>;
}

/** A message given a template instead of its subject and content: acceptEmail renders it into an EmailDraft. */
export type TemplatedDraft = Omit<EmailDraft, 'subject' | 'text' | 'html' | 'template'> & { template: DraftTemplate };

/** A message as a request gives it, with its content or with a template: what the intake operation takes. */
export type EmailRequest = EmailDraft | TemplatedDraft;

export const isTemplated = (request: EmailRequest): request is TemplatedDraft => request.template !== undefined && request.template !== null && 'reference' in request.template;

/**
 * Why `from` may not send (docs/api-decisions.md, "Emails"), or null when it may: it must be an
 * active sender of the account (enabled, not deleted) whose domain is ready.
 */
export function sendingIdentityProblem(identity: { configuredState: SenderConfiguredState; domainReady: boolean } | undefined): string | null {
  if (!identity) return 'no active sender with this address exists in the account';
  switch (effectiveSenderState(identity.configuredState, identity.domainReady)) {
    case 'disabled':
      return 'the sender with this address is disabled';
    case 'domain_not_ready':
      return "the sender's domain is not ready (ownership, DKIM and DMARC must all be verified)";
    case 'active':
      return null;
  }
}
