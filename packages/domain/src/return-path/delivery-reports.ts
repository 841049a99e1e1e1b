import { classifySmtpReply, parseSmtpReply, REPLY_READ_LIMIT } from '../delivery/classify-smtp-reply';
import type { DeliveryCause } from '../delivery/causes';
import type { DeliveryStatus } from '../delivery/message-status';
import type { DeliveryObservation } from '../delivery/transitions';

/**
 * What one recipient of a delivery status notification (RFC 3464) or a complaint (ARF,
 * RFC 5965) says about a delivery, as the inbound listener read it.
 */
export type DeliveryReport =
  | { kind: 'failed'; status: string; diagnosticCode: string | null }
  | { kind: 'delayed'; status: string; diagnosticCode: string | null }
  | { kind: 'complaint'; feedbackType: string };

/**
 * A report as judged before any delivery is looked at: a failure's cause is classified here,
 * outside the transaction that applies it (undefined when the failure is not permanent).
 */
export type ReportFinding =
  | { kind: 'failed'; cause: DeliveryCause | undefined }
  | { kind: 'delayed' }
  | { kind: 'complaint'; feedbackType: string };

export function reportFinding(report: DeliveryReport): ReportFinding {
  if (report.kind === 'failed') return { kind: 'failed', cause: dsnCause(report.status, report.diagnosticCode) };
  return report;
}

/** What a report does to its delivery (docs/api-decisions.md, "Return path"). */
export type ReportEffect =
  | { kind: 'bounce'; cause: DeliveryCause }
  | { kind: 'observation'; observation: DeliveryObservation }
  | { kind: 'none'; reason: 'not_permanent' | 'not_delivered' | 'already_final' | 'already_reported' | 'not_a_complaint' };

/** What a report is judged against: the delivery as locked. */
export interface ReportedDeliveryState {
  status: DeliveryStatus;
  delayReportedAt: Date | null;
  complainedAt: Date | null;
}

/** ARF feedback types (RFC 5965 section 7.3) that complain about the message; `not-spam` and `auth-failure` do not. */
const COMPLAINT_TYPES: ReadonlySet<string> = new Set(['abuse', 'fraud', 'virus', 'other']);

const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The cause a failed DSN gives, through the SMTP reply classification: the remote reply in
 * `Diagnostic-Code: smtp; 550 5.1.1 …` when there is one, the DSN's own `Status` (RFC 3463)
 * being the enhanced status. Undefined unless the status is permanent (5.x.x). The diagnostic
 * is remote text of any length: only its first REPLY_READ_LIMIT characters are read.
 */
export function dsnCause(status: string, diagnosticCode: string | null): DeliveryCause | undefined {
  const enhanced = STATUS.exec(status.trim());
  if (!enhanced || enhanced[1] !== '5') return undefined;
  const enhancedStatus = `5.${Number(enhanced[2])}.${Number(enhanced[3])}`;
  const diagnosticText = diagnosticCode?.slice(0, REPLY_READ_LIMIT) ?? '';
  const smtpType = /^\s*smtp\s*;\s*/i.exec(diagnosticText);
  const diagnostic = smtpType ? parseSmtpReply(diagnosticText.slice(smtpType[0].length)) : undefined;
  // The basic code decides the class in classification: a diagnostic of another class (or none) stands as 550.
  const code = diagnostic && Math.floor(diagnostic.code / 100) === 5 ? diagnostic.code : 550;
  const outcome = classifySmtpReply({ code, enhancedStatus, text: diagnostic?.text ?? diagnosticText });
  return outcome.cause ?? undefined;
}

/**
 * The effect of a report on a delivery. Only a delivery a remote server accepted can be
 * reported on: a permanent failure turns an `accepted` delivery `bounced` (the one transition
 * out of a terminal status); a delay adds a `delayed` event to an accepted one; a complaint
 * adds a `complained` event to a delivery that was accepted (or bounced since). Each applies
 * once per delivery: a replayed report changes nothing. Anything else changes nothing.
 */
export function reportEffect(report: ReportFinding, delivery: ReportedDeliveryState): ReportEffect {
  const { status } = delivery;
  const delivered = status === 'accepted' || status === 'bounced';
  if (!delivered) return { kind: 'none', reason: 'not_delivered' };
  if (report.kind === 'complaint') {
    if (!COMPLAINT_TYPES.has(report.feedbackType)) return { kind: 'none', reason: 'not_a_complaint' };
    return delivery.complainedAt ? { kind: 'none', reason: 'already_reported' } : { kind: 'observation', observation: 'complained' };
  }
  if (status !== 'accepted') return { kind: 'none', reason: 'already_final' };
  if (report.kind === 'delayed') {
    return delivery.delayReportedAt ? { kind: 'none', reason: 'already_reported' } : { kind: 'observation', observation: 'delayed' };
  }
  return report.cause ? { kind: 'bounce', cause: report.cause } : { kind: 'none', reason: 'not_permanent' };
}
