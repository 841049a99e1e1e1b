import { z } from 'zod';
import type { DnsRecordInstruction } from '@mailer/domain';
import type { DomainRepresentation } from '@mailer/operations';
import { timestampSchema } from '@mailer/operations';

const STATUSES = ['not_started', 'pending', 'verified', 'temporary_failure'] as const;

const record = z.object({
  record: z.string().meta({ description: 'What the record is for: Ownership, DKIM, DMARC, Return-Path, SPF, Receiving, Tracking.' }),
  name: z.string(),
  type: z.enum(['TXT', 'MX', 'CNAME']),
  ttl: z.literal('Auto'),
  status: z.enum(STATUSES),
  value: z.string(),
  priority: z.number().int().optional(),
});

export const resendDomainSchema = z
  .object({
    object: z.literal('domain'),
    id: z.string(),
    name: z.string(),
    status: z.enum(STATUSES).meta({ description: '`verified` when the /v1 domain is ready.' }),
    region: z.null().meta({ description: 'The service has no regions.' }),
    created_at: timestampSchema,
    open_tracking: z.boolean().meta({ description: "/v1's `tracking.opens`." }),
    click_tracking: z.boolean().meta({ description: "/v1's `tracking.clicks`." }),
    tracking_subdomain: z.string().meta({ description: "/v1's `tracking.subdomain`: the tracking host is `<tracking_subdomain>.<name>`." }),
    records: z.array(record).optional().meta({ description: 'On create and get: the records of GET /v1/domains/{id}/dns.' }),
  })
  .meta({ id: 'ResendDomain' });

/** What Resend's update and verify answer. */
export const resendDomainRefSchema = z.object({ object: z.literal('domain'), id: z.string() }).meta({ id: 'ResendDomainRef' });

type Component = keyof Pick<DomainRepresentation, 'ownership' | 'dkim' | 'dkim_ed25519' | 'dmarc' | 'return_path' | 'receiving' | 'tracking'>;
const RECORDS: Record<DnsRecordInstruction['purpose'], { record: string; component: Component }> = {
  ownership: { record: 'Ownership', component: 'ownership' },
  dkim: { record: 'DKIM', component: 'dkim' },
  dkim_ed25519: { record: 'DKIM', component: 'dkim_ed25519' },
  dmarc: { record: 'DMARC', component: 'dmarc' },
  return_path_mx: { record: 'Return-Path', component: 'return_path' },
  return_path_spf: { record: 'SPF', component: 'return_path' },
  // Listed only while receiving is on (docs/api-decisions.md, "Inbound mail").
  receiving_mx: { record: 'Receiving', component: 'receiving' },
  // Listed only while opens or clicks are tracked (docs/api-decisions.md, "Opens and clicks").
  tracking_cname: { record: 'Tracking', component: 'tracking' },
};

function status(domain: DomainRepresentation, component?: Component): (typeof STATUSES)[number] {
  if (component ? domain[component].status === 'verified' : domain.status === 'ready') return 'verified';
  if (!domain.last_check) return 'not_started';
  return domain.last_check.status === 'temporary_failure' ? 'temporary_failure' : 'pending';
}

/** A /v1 domain as Resend shows one; with its records when they are given. */
export function toResendDomain(domain: DomainRepresentation, records?: DnsRecordInstruction[]): z.infer<typeof resendDomainSchema> {
  return {
    object: 'domain',
    id: domain.id,
    name: domain.name,
    status: status(domain),
    region: null,
    created_at: domain.created_at,
    open_tracking: domain.tracking.opens,
    click_tracking: domain.tracking.clicks,
    tracking_subdomain: domain.tracking.subdomain,
    ...(records
      ? {
          records: records.map((r) => {
            const mx = r.type === 'MX' ? /^(\d+) (.+)$/.exec(r.value) : null;
            return {
              record: RECORDS[r.purpose].record,
              name: r.name,
              type: r.type,
              ttl: 'Auto' as const,
              status: status(domain, RECORDS[r.purpose].component),
              value: mx ? mx[2]! : r.value,
              ...(mx ? { priority: Number(mx[1]) } : {}),
            };
          }),
        }
      : {}),
  };
}
