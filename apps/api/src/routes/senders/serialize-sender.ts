import { effectiveSenderState } from '@mailer/domain';
import { iso, type SenderRecord } from '@mailer/operations';
import type { SenderView } from './sender.schema';

export function serializeSender(sender: SenderRecord): SenderView {
  return {
    id: sender.id,
    domain_id: sender.domainId,
    email: sender.email,
    display_name: sender.displayName,
    transport_security_policy: sender.transportSecurityPolicy,
    configured_state: sender.configuredState,
    effective_state: effectiveSenderState(sender.configuredState, sender.domainReady),
    last_used_at: iso(sender.lastUsedAt),
    delivery_counts: {
      accepted: sender.acceptedCount,
      bounced: sender.bouncedCount,
      failed: sender.failedCount,
      deferred: sender.deferredCount,
    },
    created_at: iso(sender.createdAt),
    updated_at: iso(sender.updatedAt),
  };
}
