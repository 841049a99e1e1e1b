import { z } from 'zod';
import {
  normalizeDisplayName,
  SENDER_CONFIGURED_STATES,
  SENDER_EFFECTIVE_STATES,
  TRANSPORT_SECURITY_POLICIES,
} from '@mailer/domain';
import { timestampSchema } from '@mailer/operations';

/** Input: trimmed, then held to the display-name rules; every broken rule becomes a detail. */
export const displayNameInput = z
  .string()
  .transform((value, ctx) => {
    const result = normalizeDisplayName(value);
    if (result.ok) return result.value;
    for (const message of result.problems) ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  })
  .meta({
    description:
      'Trimmed (Unicode white space); then nonempty, at most 128 Unicode scalar values and 256 UTF-8 bytes, no control characters.',
  });

export const transportSecurityPolicyInput = z.enum(TRANSPORT_SECURITY_POLICIES, {
  error: () => `must be one of ${TRANSPORT_SECURITY_POLICIES.join(', ')}`,
});

/** The sender representation (docs/api-decisions.md, "Senders"). */
export const senderSchema = z.object({
  id: z.string().meta({ description: 'snd_…' }),
  domain_id: z.string(),
  email: z.string().meta({ description: 'As supplied, with the domain part as lower-case A-labels.' }),
  display_name: z.string().nullable(),
  transport_security_policy: z.enum(TRANSPORT_SECURITY_POLICIES),
  configured_state: z.enum(SENDER_CONFIGURED_STATES),
  effective_state: z
    .enum(SENDER_EFFECTIVE_STATES)
    .meta({ description: '`active` when enabled and the domain is ready; otherwise `domain_not_ready` or `disabled`.' }),
  last_used_at: timestampSchema.nullable().meta({ description: 'When a message from this sender was last accepted.' }),
  delivery_counts: z.object({
    accepted: z.number().int(),
    bounced: z.number().int(),
    failed: z.number().int(),
    deferred: z.number().int().meta({ description: 'Deliveries currently deferred.' }),
  }),
  created_at: timestampSchema,
  updated_at: timestampSchema.meta({ description: 'Unchanged by a PATCH that changes nothing.' }),
}).meta({ id: 'Sender' });

export type SenderView = z.infer<typeof senderSchema>;
