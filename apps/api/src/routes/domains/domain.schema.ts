import { z } from 'zod';
import { normalizeDomainName, normalizeExternalId, type Normalized } from '@mailer/domain';

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
