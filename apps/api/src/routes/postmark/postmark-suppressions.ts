import { z } from 'zod';
import type { SuppressionReason } from '@mailer/domain';
import type { Suppression } from '@mailer/operations';

const REASONS: Record<SuppressionReason, { reason: string; origin: string }> = {
  hard_bounce: { reason: 'HardBounce', origin: 'Recipient' },
  complaint: { reason: 'SpamComplaint', origin: 'Recipient' },
  manual: { reason: 'ManualSuppression', origin: 'Customer' },
  // Postmark's own reason and origin for a recipient who used an unsubscribe link.
  unsubscribed: { reason: 'ManualSuppression', origin: 'Recipient' },
};

export const postmarkSuppressionSchema = z
  .object({
    EmailAddress: z.string(),
    SuppressionReason: z.enum(['HardBounce', 'SpamComplaint', 'ManualSuppression']),
    Origin: z.enum(['Recipient', 'Customer']),
    CreatedAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'PostmarkSuppression' });

export const toPostmarkSuppression = (s: Suppression): z.infer<typeof postmarkSuppressionSchema> => ({
  EmailAddress: s.email,
  SuppressionReason: REASONS[s.reason].reason as z.infer<typeof postmarkSuppressionSchema>['SuppressionReason'],
  Origin: REASONS[s.reason].origin as z.infer<typeof postmarkSuppressionSchema>['Origin'],
  CreatedAt: s.createdAt.toISOString(),
});

/** The body of createSuppressions and deleteSuppressions: `{Suppressions: [{EmailAddress}]}`. */
export const postmarkSuppressionChangeSchema = z
  .strictObject({ Suppressions: z.array(z.strictObject({ EmailAddress: z.string() })).min(1).max(50) })
  .meta({ id: 'PostmarkSuppressionChange' });

export const postmarkSuppressionResultsSchema = z
  .object({ Suppressions: z.array(z.object({ EmailAddress: z.string(), Status: z.enum(['Suppressed', 'Deleted', 'Failed']), Message: z.string().nullable() })) })
  .meta({ id: 'PostmarkSuppressionResults' });
