import { z } from 'zod';
import { normalizeDomainName, normalizeExternalId, VERIFICATION_STATUS_VALUES, type Normalized } from '@mailer/domain';

function normalizedBy(normalize: (input: string) => Normalized<string>) {
  return (value: string, ctx: z.core.$RefinementCtx<string>) => {
    const result = normalize(value);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.message });
    return z.NEVER;
  };
}

const stringError = (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string');

export const domainNameInput = z
  .string({ error: stringError })
  .transform(normalizedBy(normalizeDomainName))
  .meta({
    description:
      'A host name (IDN accepted; stored as lower-case A-labels without a trailing dot): letters, digits and hyphens per label, ' +
      'at least two labels, not an IP address, not a public suffix such as `co.uk`.',
  });

export const externalIdInput = z
  .string({ error: stringError })
  .transform(normalizedBy(normalizeExternalId))
  .meta({
    description: 'Your own identifier: trimmed, NFC-normalized, 1 to 255 characters, no control characters; unique among your active domains.',
  });

const component = z.object({ status: z.enum(VERIFICATION_STATUS_VALUES) }).meta({
  description:
    '`not_checked`; `missing` (NXDOMAIN or no such record); `mismatch` (present, but wrong or invalid); `verified`. ' +
    'A temporary resolver failure never changes it.',
});

/** The domain representation (CONTRACT.md section 6). */
export const domainSchema = z.object({
  id: z.string().meta({ description: 'dom_…' }),
  name: z.string().meta({ description: 'Lower-case A-labels.' }),
  external_id: z.string().nullable(),
  status: z.enum(['ready', 'not_ready']).meta({ description: '`ready` when ownership, DKIM and DMARC are all verified.' }),
  ownership: component,
  dkim: component,
  dmarc: component,
  sender_count: z.number().int().meta({ description: 'Active senders of the domain.' }),
  delivery_counts: z
    .object({
      accepted: z.number().int(),
      bounced: z.number().int(),
      failed: z.number().int(),
      deferred: z.number().int().meta({ description: 'Deliveries currently deferred.' }),
    })
    .meta({ description: "Over all the domain's senders, deleted ones included." }),
  last_check: z
    .object({ status: z.enum(['completed', 'temporary_failure']), started_at: z.string(), completed_at: z.string() })
    .nullable()
    .meta({ description: 'The latest check-dns; `temporary_failure` when a lookup failed temporarily (that component kept its status).' }),
  created_at: z.string(),
  updated_at: z.string(),
});

export type DomainRepresentation = z.infer<typeof domainSchema>;
