import { z } from 'zod';
import type { AppError, ErrorCode } from '@mailer/domain';
import { withDetails, type ApiDialect } from '../../http/dialect';

/** Postmark's ErrorCode and the HTTP status it comes with (Postmark's API reference, "Error codes"). */
type PostmarkError = { status: number; errorCode: number };

const BAD_TOKEN: PostmarkError = { status: 401, errorCode: 10 };
const INVALID_REQUEST: PostmarkError = { status: 422, errorCode: 300 };
const MESSAGE_NOT_FOUND: PostmarkError = { status: 422, errorCode: 701 };
const RATE_LIMIT: PostmarkError = { status: 429, errorCode: 429 };

/** The contract's codes in Postmark's terms (docs/api-decisions.md, "Resend and Postmark adapters"); unlisted 4xx codes are 300, invalid request. */
const POSTMARK_ERRORS: Partial<Record<ErrorCode, PostmarkError>> = {
  unauthorized: BAD_TOKEN,
  wrong_key_type: BAD_TOKEN,
  insufficient_scope: BAD_TOKEN,
  invalid_json: { status: 422, errorCode: 402 },
  unsupported_media_type: { status: 422, errorCode: 409 },
  sender_not_allowed: { status: 422, errorCode: 400 },
  sending_paused: { status: 422, errorCode: 412 },
  email_not_found: MESSAGE_NOT_FOUND,
  suppression_not_found: INVALID_REQUEST,
  not_found: { status: 404, errorCode: 404 },
  method_not_allowed: { status: 405, errorCode: 405 },
  payload_too_large: { status: 413, errorCode: 300 },
  rate_limit_exceeded: RATE_LIMIT,
  active_delivery_limit_exceeded: RATE_LIMIT,
  internal_error: { status: 500, errorCode: 500 },
  service_unavailable: { status: 503, errorCode: 503 },
  operator_token_not_configured: { status: 503, errorCode: 503 },
};

const FIELDS: [RegExp, string][] = [
  [/^from$/, 'From'],
  [/^to(\[\d+\])?$/, 'To'],
  [/^cc(\[\d+\])?$/, 'Cc'],
  [/^bcc(\[\d+\])?$/, 'Bcc'],
  [/^reply_to(\[\d+\])?$/, 'ReplyTo'],
  [/^subject$/, 'Subject'],
  [/^content\.plain$/, 'TextBody'],
  [/^content(\.html)?$/, 'HtmlBody'],
  [/^type$/, 'MessageStream'],
  [/^headers\.?(.*)$/, 'Headers$1'],
  [/^tags\.tag$/, 'Tag'],
  [/^tags\.?(.*)$/, 'Metadata$1'],
  [/^attachments\[(\d+)\]\.filename$/, 'Attachments[$1].Name'],
  [/^attachments\[(\d+)\]\.content_base64$/, 'Attachments[$1].Content'],
  [/^attachments\[(\d+)\]\.content_type$/, 'Attachments[$1].ContentType'],
  [/^attachments\[(\d+)\]\.content_id$/, 'Attachments[$1].ContentID'],
  [/^attachments(.*)$/, 'Attachments$1'],
  [/^template\.id$/, 'TemplateId'],
  [/^template\.alias$/, 'TemplateAlias'],
  [/^template\.variables(.*)$/, 'TemplateModel$1'],
  [/^template$/, 'TemplateId or TemplateAlias'],
];

/** A /v1 body path in Postmark's field names (`content.plain` is TextBody, `tags.x` is Metadata.x, `template.variables` is TemplateModel; a list's index names its entry). */
export function postmarkPath(path: string): string {
  const item = /^(\[\d+\]\.)?(.*)$/.exec(path)!;
  for (const [pattern, name] of FIELDS) if (pattern.test(item[2]!)) return (item[1] ?? '') + item[2]!.replace(pattern, name);
  return path;
}

/** An error as Postmark writes one: its ErrorCode and HTTP status, and a message naming the fields at fault. */
export function postmarkError(error: AppError): { status: number; body: { ErrorCode: number; Message: string } } {
  const mapped = POSTMARK_ERRORS[error.code] ?? (error.code === 'internal_error' ? { status: 500, errorCode: 500 } : INVALID_REQUEST);
  return { status: mapped.status, body: { ErrorCode: mapped.errorCode, Message: withDetails(error, postmarkPath) } };
}

export const postmarkErrorSchema = z
  .object({
    ErrorCode: z.number().int().meta({ description: "Postmark's code: 10 bad token, 300 invalid request, 400 sender not allowed, 429 rate limit, 701 message not found, …" }),
    Message: z.string(),
  })
  .meta({ id: 'PostmarkError' });

/** Postmark's server API (docs/api-decisions.md, "Resend and Postmark adapters"): the X-Postmark-Server-Token header, errors as `{ErrorCode, Message}`. */
export const postmarkDialect: ApiDialect = {
  securityScheme: 'postmarkServerToken',
  credential: (req) => req.get('x-postmark-server-token')?.trim() || undefined,
  render: postmarkError,
  errorSchema: postmarkErrorSchema,
};
