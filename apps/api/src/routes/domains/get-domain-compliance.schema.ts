import { z } from 'zod';
import { COMPLIANCE_REQUIREMENTS, COMPLIANCE_STATUSES, EMAIL_TYPES, MAILBOX_PROVIDERS } from '@mailer/domain';

export const domainComplianceSchema = z
  .object({
    domain_id: z.string(),
    providers: z.array(
      z.object({
        provider: z.enum(MAILBOX_PROVIDERS),
        requirements: z
          .array(
            z.object({
              requirement: z.enum(COMPLIANCE_REQUIREMENTS).meta({
                description:
                  '`spf_aligned`: SPF of the envelope domain passes for every egress address and aligns with From; `dkim_aligned`: the DKIM record ' +
                  'verified (the service signs with the domain); `dmarc_published`: a valid DMARC record, `p=none` at least; ' +
                  '`forward_confirmed_reverse_dns`: every egress address has a PTR name resolving back to it; `tls`: mail accepted by the ' +
                  'provider in the last 24 h went over TLS; `one_click_unsubscribe`: RFC 8058 headers on broadcast mail; `complaint_rate`: ' +
                  'complaints over accepted deliveries in the last 24 h, one entry per stream.',
              }),
              status: z.enum(COMPLIANCE_STATUSES).meta({ description: '`unknown`: the service cannot tell; `reason` says why.' }),
              reason: z.string(),
              stream: z.enum(EMAIL_TYPES).optional().meta({ description: '`complaint_rate` only: the stream the rate is of.' }),
            }),
          )
          .meta({ description: 'The requirements this provider publishes, in a fixed order.' }),
      }),
    ),
  })
  .meta({ id: 'DomainCompliance' });
