import { z } from 'zod';
import type { SendingState } from '@mailer/db';
import { EMAIL_TYPES, reputationRates, SENDING_STATUSES } from '@mailer/domain';
import { iso, timestampSchema } from '../timestamp';

const rate = (description: string) => z.number().min(0).max(1).meta({ description: `${description} A fraction (0.05 is 5 %), rounded to 6 decimals.` });

/** A stream's sending status (docs/api-decisions.md, "Reputation", "Streams"), as GET /v1/account, the CLI and the webhook show it. */
export const sendingSchema = z
  .object({
    status: z.enum(SENDING_STATUSES).meta({
      description: '`under_review` is only reported; `paused` refuses new mail (`403 sending_paused`) and holds owed deliveries until an operator resumes it.',
    }),
    reason: z.string().nullable().meta({ description: 'Why: the rate and threshold that changed it, or the reason an operator gave; null when enabled by an evaluation.' }),
    since: timestampSchema,
    bounce_rate: rate('Hard bounces over to/cc deliveries that ended after an attempt in the last 24 hours (since a resume, if later).'),
    complaint_rate: rate('Complaints over accepted to/cc deliveries in the same window.'),
  })
  .meta({ id: 'AccountSending' });
export type SendingRepresentation = z.infer<typeof sendingSchema>;

/** The data of an `account.sending_status_changed` webhook event. */
export const sendingStatusChangedSchema = sendingSchema
  .extend({
    account_id: z.string().meta({ description: 'acc_…' }),
    stream: z.enum(EMAIL_TYPES).meta({ description: 'The stream whose status changed: each has its own (docs "Streams").' }),
    previous_status: z.enum(SENDING_STATUSES),
  })
  .meta({ id: 'AccountSendingStatusChanged' });

const rounded = (value: number) => Math.round(value * 1e6) / 1e6;

export function toSending(state: SendingState): SendingRepresentation {
  const rates = reputationRates(state.window);
  return { status: state.status, reason: state.reason, since: iso(state.since), bounce_rate: rounded(rates.bounceRate), complaint_rate: rounded(rates.complaintRate) };
}

export const sendingStatusChanged = (before: SendingState, after: SendingState): z.infer<typeof sendingStatusChangedSchema> => ({
  account_id: after.accountId,
  stream: after.stream,
  previous_status: before.status,
  ...toSending(after),
});
