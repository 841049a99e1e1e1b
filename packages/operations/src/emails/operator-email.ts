import type { OperatorEmailDetail } from '@mailer/db';
import { iso } from '../timestamp';
import { toEmailSummary } from './email-representation';

/**
 * A message as an operator sees it (`email show`, the console): everything of its history,
 * BCC deliveries included, and for each attempt what the transport saw (MX host and address,
 * the deciding reply, TLS and the policy that applied; docs/api-decisions.md, "Delivery",
 * Attempts). Never served by the integrators' API.
 */
export function toOperatorEmail(detail: OperatorEmailDetail) {
  const { email } = detail;
  return {
    ...toEmailSummary(email),
    account_id: detail.accountId,
    cause: email.cause,
    template: email.template,
    completed_at: iso(email.completedAt),
    deliveries: detail.deliveries.map((d) => ({
      recipient: d.recipient,
      kind: d.kind,
      status: d.status,
      attempt_count: d.attemptCount,
      cause: d.cause,
      updated_at: iso(d.updatedAt),
    })),
    attempts: detail.attempts.map((a) => ({
      number: a.number,
      started_at: iso(a.startedAt),
      ended_at: iso(a.endedAt),
      outcome: a.outcome,
      recipients: a.recipients,
      bcc_recipients: a.bccRecipients,
      cause: a.cause,
      mx_host: a.mxHost,
      mx_address: a.mxAddress,
      reply: a.reply,
      tls: a.tlsVersion === null ? null : { version: a.tlsVersion, cipher: a.tlsCipher, certificate_verified: a.tlsVerified },
      tls_policy: a.tlsPolicy,
      tls_result: a.tlsResult,
    })),
    events: detail.events.map((e) => ({ type: e.type, at: iso(e.at), recipient: e.recipient, cause: e.cause })),
  };
}
