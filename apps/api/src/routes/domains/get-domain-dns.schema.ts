import { z } from 'zod';
import { DKIM_KEY_STATES, DNS_PURPOSES } from '@mailer/domain';
import { timestampSchema } from '@mailer/operations';

export const domainDnsSchema = z.object({
  records: z.array(
    z.object({
      purpose: z.enum(DNS_PURPOSES).meta({
        description:
          '`dkim`: an RSA key (`k=rsa`); `dkim_ed25519`: an Ed25519 key (`k=ed25519`, RFC 8463); `tracking_cname`: the tracking host, ' +
          'listed while opens or clicks are tracked.',
      }),
      type: z.enum(['TXT', 'MX', 'CNAME']),
      name: z.string().meta({ description: 'Fully qualified, without a trailing dot.' }),
      value: z.string().meta({
        description:
          'TXT: the record text; split into strings of at most 255 characters where your DNS host requires it. MX: `<preference> <host>`. CNAME: the host it names.',
      }),
      state: z.enum(DKIM_KEY_STATES).optional().meta({
        description:
          'DKIM records only. `active`: signs now; `pending`: a rotation\'s new key, to publish (signing switches to it once check-dns ' +
          'verifies it); `retiring`: replaced, keep it published until `retiring_until`; `retired`: safe to remove.',
      }),
      retiring_until: timestampSchema.optional().meta({ description: 'Retiring DKIM records only: when the record becomes safe to remove (seven days after it was replaced).' }),
    }),
  ),
  warnings: z
    .array(
      z.object({
        code: z.enum(['placeholder_host']).meta({
          description: "`placeholder_host`: the service's host name is a development placeholder (`….invalid`), so the return-path MX and SPF records cannot be published as they are.",
        }),
        message: z.string(),
      }),
    )
    .meta({ description: 'What keeps these records from being published as they stand; empty when nothing does.' }),
}).meta({ id: 'DomainDnsRecords' });
