import type { DomainView } from '@mailer/db';
import { isDomainReady } from '@mailer/domain';
import { iso } from '../../http/serialize';
import type { DomainRepresentation } from './domain.schema';

/** The one domain -> JSON mapping, shared by list, get, create and check-dns. */
export function serializeDomain(domain: DomainView): DomainRepresentation {
  const { lastCheckStatus, lastCheckStartedAt, lastCheckCompletedAt } = domain;
  return {
    id: domain.id,
    name: domain.name,
    external_id: domain.externalId,
    status: isDomainReady(domain) ? 'ready' : 'not_ready',
    ownership: { status: domain.ownershipStatus },
    dkim: { status: domain.dkimStatus },
    dmarc: { status: domain.dmarcStatus },
    sender_count: domain.senderCount,
    delivery_counts: domain.deliveryCounts,
    last_check:
      lastCheckStatus && lastCheckStartedAt && lastCheckCompletedAt
        ? { status: lastCheckStatus, started_at: iso(lastCheckStartedAt), completed_at: iso(lastCheckCompletedAt) }
        : null,
    created_at: iso(domain.createdAt),
    updated_at: iso(domain.updatedAt),
  };
}
