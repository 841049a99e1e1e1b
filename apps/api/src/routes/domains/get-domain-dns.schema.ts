import { z } from 'zod';
import { DNS_PURPOSES } from '@mailer/domain';

export const domainDnsSchema = z.object({
  records: z.array(
    z.object({
      purpose: z.enum(DNS_PURPOSES),
      type: z.enum(['TXT', 'MX']),
      name: z.string().meta({ description: 'Fully qualified, without a trailing dot.' }),
      value: z.string().meta({
        description:
          'TXT: the record text; split into strings of at most 255 characters where your DNS host requires it. MX: `<preference> <host>`.',
      }),
    }),
  ),
}).meta({ id: 'DomainDnsRecords' });
