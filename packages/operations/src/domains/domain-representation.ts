import { z } from 'zod';
import type { DomainView } from '@mailer/db';
import { isDomainReady, receivingHost, trackingHost, VERIFICATION_STATUS_VALUES } from '@mailer/domain';
import { timestampSchema } from '../timestamp';

const component = z.object({ status: z.enum(VERIFICATION_STATUS_VALUES) }).meta({
  description:
    '`not_checked`; `missing` (NXDOMAIN or no such record); `mismatch` (present, but wrong or invalid); `verified`. ' +
    'A temporary resolver failure never changes it.',
});

/** The domain representation (docs/api-decisions.md, "Domains"), as the API answers it and the CLI prints it. */
export const domainSchema = z.object({
  id: z.string().meta({ description: 'dom_…' }),
  name: z.string().meta({ description: 'Lower-case A-labels.' }),
  external_id: z.string().nullable(),
  status: z.enum(['ready', 'not_ready']).meta({ description: '`ready` when ownership, DKIM and DMARC are all verified.' }),
  ownership: component,
  dkim: component.meta({ description: 'The RSA key\'s record (`dkim` in GET /v1/domains/{id}/dns); counts towards `status`.' }),
  dkim_ed25519: component.meta({
    description:
      'The Ed25519 key\'s record (`dkim_ed25519`, RFC 8463). Once verified, every message carries an `ed25519-sha256` signature ' +
      'beside the `rsa-sha256` one; it does not count towards `status`.',
  }),
  dmarc: component,
  return_path: component.meta({
    description:
      'The return-path host `bounces.<domain>` (MX and SPF records of GET /v1/domains/{id}/dns). Once verified, bounces and ' +
      'complaints come back to the service; it does not count towards `status`.',
  }),
  receiving: component
    .extend({
      enabled: z.boolean().meta({ description: 'Inbound mail is on (PATCH /v1/domains/{id} `{receiving: true}`).' }),
      host: z.string().meta({ description: 'Where mail is received: the domain, or its `receiving_subdomain`.' }),
    })
    .meta({
      description:
        'Inbound mail: the MX record at `host` (purpose `receiving_mx` of GET /v1/domains/{id}/dns) names the service\'s inbound host. ' +
        'Checked by check-dns while `enabled`; routed addresses are received only once it is `verified`. It does not count towards `status`.',
    }),
  tracking: component
    .extend({
      opens: z.boolean().meta({ description: 'An open pixel in the HTML part of each to/cc copy (PATCH `{tracking: {opens: true}}`).' }),
      clicks: z.boolean().meta({ description: "The HTML part's http(s) links go through the tracking host." }),
      subdomain: z.string().meta({ description: 'The label of the tracking host; `track` unless set.' }),
      host: z.string().meta({ description: '`<subdomain>.<domain>`: where the pixel and the rewritten links point.' }),
    })
    .meta({
      description:
        'Opens and clicks (docs/api-decisions.md, "Opens and clicks"), for messages whose `track` does not say otherwise: the CNAME at ' +
        '`host` (purpose `tracking_cname` of GET /v1/domains/{id}/dns) names the service\'s tracking host. Checked by check-dns while ' +
        'opens or clicks are on. It does not count towards `status`.',
    }),
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
    .object({ status: z.enum(['completed', 'temporary_failure']), started_at: timestampSchema, completed_at: timestampSchema })
    .nullable()
    .meta({ description: 'The latest check-dns; `temporary_failure` when a lookup failed temporarily (that component kept its status).' }),
  created_at: timestampSchema,
  updated_at: timestampSchema,
}).meta({ id: 'Domain' });

export type DomainRepresentation = z.infer<typeof domainSchema>;

/** The one domain -> JSON mapping: the API's list, get, create and check-dns, and the CLI's `domain check`. */
export function serializeDomain(domain: DomainView): DomainRepresentation {
  const { lastCheckStatus, lastCheckStartedAt, lastCheckCompletedAt } = domain;
  return {
    id: domain.id,
    name: domain.name,
    external_id: domain.externalId,
    status: isDomainReady(domain) ? 'ready' : 'not_ready',
    ownership: { status: domain.ownershipStatus },
    dkim: { status: domain.dkimStatus },
    dkim_ed25519: { status: domain.dkimEd25519Status },
    dmarc: { status: domain.dmarcStatus },
    return_path: { status: domain.returnPathStatus },
    receiving: { status: domain.receivingStatus, enabled: domain.receivingEnabled, host: receivingHost(domain) },
    tracking: {
      status: domain.trackingStatus,
      opens: domain.trackingOpens,
      clicks: domain.trackingClicks,
      subdomain: domain.trackingSubdomain,
      host: trackingHost(domain),
    },
    sender_count: domain.senderCount,
    delivery_counts: domain.deliveryCounts,
    last_check:
      lastCheckStatus && lastCheckStartedAt && lastCheckCompletedAt
        ? { status: lastCheckStatus, started_at: lastCheckStartedAt.toISOString(), completed_at: lastCheckCompletedAt.toISOString() }
        : null,
    created_at: domain.createdAt.toISOString(),
    updated_at: domain.updatedAt.toISOString(),
  };
}
