import { classifySmtpReply, parseSmtpReply } from '../delivery/classify-smtp-reply';
import type { DeliveryCause } from '../delivery/causes';
import type { DeliveryStatus } from '../delivery/message-status';

/**
 * What one recipient of a delivery status notification (RFC 3464) or a complaint (ARF,
 * RFC 5965) says about a delivery, as the inbound listener read it.
 */
export type DeliveryReport =
  | { kind: 'failed'; status: string; diagnosticCode: string | null }
  | { kind: 'delayed'; status: string; diagnosticCode: string | null }
  | { kind: 'complaint'; feedbackType: string };

/** What a report does to its delivery (docs/api-decisions.md, "Return path"). */
export type ReportEffect =
  | { kind: 'bounce'; cause: DeliveryCause }
  | { kind: 'event'; type: 'delayed' | 'complained' }
  | { kind: 'none'; reason: 'not_permanent' | 'not_delivered' | 'already_final' | 'not_a_complaint' };

/** ARF feedback types (RFC 5965 section 7.3) that complain about the message; `not-spam` and `auth-failure` do not. */
const COMPLAINT_TYPES: ReadonlySet<string> = new Set(['abuse', 'fraud', 'virus', 'other']);

const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The cause a failed DSN gives, through the SMTP reply classification: the remote reply in
 * `Diagnostic-Code: smtp; 550 5.1.1 …` when there is one, the DSN's own `Status` (RFC 3463)
 * being the enhanced status. Undefined unless the status is permanent (5.x.x).
 */
export function dsnCause(status: string, diagnosticCode: string | null): DeliveryCause | undefined {
  const enhanced = STATUS.exec(status.trim());
  if (!enhanced || enhanced[1] !== '5') return undefined;
  const enhancedStatus = `5.${Number(enhanced[2])}.${Number(enhanced[3])}`;
  const diagnostic = diagnosticCode && /^\s*smtp\s*;/i.test(diagnosticCode) ? parseSmtpReply(diagnosticCode.replace(/^\s*smtp\s*;\s*/i, '')) : undefined;
  // The basic code decides the class in classification: a diagnostic of another class (or none) stands as 550.
  const code = diagnostic && Math.floor(diagnostic.code / 100) === 5 ? diagnostic.code : 550;
  const outcome = classifySmtpReply({ code, enhancedStatus, text: diagnostic?.text ?? diagnosticCode ?? '' });
  return outcome.cause ?? undefined;
}

/**
 * The effect of a report on a delivery in `status`. Only a delivery a remote server accepted
 * can be reported on: a permanent failure turns an `accepted` delivery `bounced` (the one
 * transition out of a terminal status); a delay adds a `delayed` event to an accepted one; a
 * complaint adds a `complained` event to a delivery that was accepted (or bounced since).
 * Anything else changes nothing.
 */
export function reportEffect(report: DeliveryReport, status: DeliveryStatus): ReportEffect {
  const delivered = status === 'accepted' || status === 'bounced';
  if (!delivered) return { kind: 'none', reason: 'not_delivered' };
  if (report.kind === 'complaint') {
    return COMPLAINT_TYPES.has(report.feedbackType) ? { kind: 'event', type: 'complained' } : { kind: 'none', reason: 'not_a_complaint' };
  }
  if (status !== 'accepted') return { kind: 'none', reason: 'already_final' };
  if (report.kind === 'delayed') return { kind: 'event', type: 'delayed' };
  const cause = dsnCause(report.status, report.diagnosticCode);
  return cause ? { kind: 'bounce', cause } : { kind: 'none', reason: 'not_permanent' };
}
