import { z } from 'zod';
import { EMAIL_TYPES, parseMailbox, SUPPRESSION_REASONS, type Mailbox } from '@mailer/domain';
import { type Suppression, timestampSchema } from '@mailer/operations';
import { pageQuerySchema } from '../../http/pagination';

const address = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .transform((value, ctx): Mailbox => {
    const mailbox = parseMailbox(value);
    if (mailbox) return mailbox;
    ctx.addIssue({ code: 'custom', message: 'must be an email address such as user@example.com' });
    return z.NEVER;
  })
  .meta({ description: 'Normalized as recipients are: IDN domains as A-labels, compared case-insensitively.' });

const stream = z.enum(EMAIL_TYPES, { error: `must be one of: ${EMAIL_TYPES.join(', ')}` });

export const createSuppressionBodySchema = z
  .strictObject({
    email: address,
    stream: stream.nullable().optional().meta({ description: 'The stream the entry holds for; absent or null: every stream.' }),
  })
  .meta({ id: 'CreateSuppressionRequest' });

/** The stream an entry is looked up or removed for: the entries that hold for it (its own and every stream's). */
export const suppressionStreamQuerySchema = z.strictObject({
  stream: stream.optional().meta({ description: 'Only the entries that hold for this stream (its own and every stream\'s).' }),
});

export const listSuppressionsQuerySchema = pageQuerySchema.extend({
  email: address.optional().meta({ description: 'Only this address (normalized as on creation).' }),
  ...suppressionStreamQuerySchema.shape,
});

/** The suppression representation (docs/api-decisions.md, "Suppressions"). */
export const suppressionSchema = z.object({
  email: z.string().meta({ description: 'The address as normalized when it was suppressed.' }),
  reason: z.enum(SUPPRESSION_REASONS).meta({
    description: '`hard_bounce`, `complaint` and `unsubscribed` (the recipient used the List-Unsubscribe link or address) are added by the service; `manual` over the API.',
  }),
  stream: stream.nullable().meta({
    description: 'The stream it holds for; null for every stream. A hard bounce holds for every stream, a complaint or an unsubscribe for its message\'s stream.',
  }),
  email_id: z.string().nullable().meta({ description: 'The message whose bounce, complaint or unsubscribe added it (em_…); null for manual entries.' }),
  created_at: timestampSchema,
}).meta({ id: 'Suppression' });

export const serializeSuppression = (s: Suppression): z.infer<typeof suppressionSchema> => ({
  email: s.email,
  reason: s.reason,
  stream: s.stream,
  email_id: s.emailId,
  created_at: s.createdAt.toISOString(),
});
