import { z } from 'zod';
import { scheduledAtSchema } from '@mailer/operations';

/** The PATCH /v1/emails/{id} body, which Resend's PATCH /emails/{id} sends as it is (docs/api-decisions.md, "Scheduled send and cancel"). */
export const rescheduleEmailBodySchema = z.strictObject({ scheduled_at: scheduledAtSchema }).meta({ id: 'RescheduleEmailRequest' });
