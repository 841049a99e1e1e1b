/** What the account set: DELETE disables a sender (and soft-deletes it). */
export const SENDER_CONFIGURED_STATES = ['enabled', 'disabled'] as const;
export type SenderConfiguredState = (typeof SENDER_CONFIGURED_STATES)[number];

/** Whether mail from the sender is accepted now; derived, never stored (docs/api-decisions.md, "Senders"). */
export const SENDER_EFFECTIVE_STATES = ['active', 'disabled', 'domain_not_ready'] as const;
export type SenderEffectiveState = (typeof SENDER_EFFECTIVE_STATES)[number];

/** A disabled sender reads `disabled` whatever its domain's state; an enabled one follows its domain's readiness. */
export function effectiveSenderState(configured: SenderConfiguredState, domainReady: boolean): SenderEffectiveState {
  if (configured === 'disabled') return 'disabled';
  return domainReady ? 'active' : 'domain_not_ready';
}
