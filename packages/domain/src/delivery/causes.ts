/**
 * The normalized causes a delivery status can carry (docs/api-decisions.md,
 * "Delivery", Causes). This is the whole vocabulary: the API shows these codes and nothing of the
 * remote server's reply text.
 */
export const CAUSE_CODES = [
  'recipient_unknown',
  'mailbox_full',
  'mailbox_disabled',
  'recipient_domain_not_found',
  'no_mail_server',
  'message_rejected',
  'message_too_large',
  'rate_limited_by_recipient',
  'greylisted',
  'connection_failed',
  'connection_lost',
  'timeout',
  'tls_required_unavailable',
  /** The recipient domain's MTA-STS policy in `enforce` mode could not be met: nothing was sent in clear. */
  'tls_policy_failed',
  'dns_temporary_failure',
  'remote_temporary_failure',
  'remote_permanent_failure',
  'retries_exhausted',
  'sender_disabled',
  'domain_not_ready',
  'internal_error',
  /** The recipient is on the account's suppression list: the delivery was never attempted. */
  'recipient_suppressed',
  /** The message was canceled before any delivery started (POST /v1/emails/{id}/cancel). */
  'canceled',
  /** An operator deleted the delivery from the queue (`queue delete`): it was never attempted again. */
  'canceled_by_operator',
] as const;

export type CauseCode = (typeof CAUSE_CODES)[number];

/** As stored and returned: `permanent` says whether retrying can help. */
export interface DeliveryCause {
  code: CauseCode;
  permanent: boolean;
  smtp_code: number | null;
  enhanced_status: string | null;
}

/** The result of one attempt for one recipient; `cause` is null only when accepted. */
export type DeliveryOutcome =
  | { outcome: 'accepted'; cause: null }
  | { outcome: 'deferred'; cause: DeliveryCause }
  | { outcome: 'bounced'; cause: DeliveryCause }
  | { outcome: 'failed'; cause: DeliveryCause };

export const ACCEPTED: DeliveryOutcome = { outcome: 'accepted', cause: null };

export function deferred(code: CauseCode, smtpCode: number | null = null, enhancedStatus: string | null = null): DeliveryOutcome {
  return { outcome: 'deferred', cause: { code, permanent: false, smtp_code: smtpCode, enhanced_status: enhancedStatus } };
}

export function bounced(code: CauseCode, smtpCode: number | null = null, enhancedStatus: string | null = null): DeliveryOutcome {
  return { outcome: 'bounced', cause: { code, permanent: true, smtp_code: smtpCode, enhanced_status: enhancedStatus } };
}

export function failed(code: CauseCode): DeliveryOutcome {
  return { outcome: 'failed', cause: { code, permanent: true, smtp_code: null, enhanced_status: null } };
}
