import { applyReport, type DeliveryReportFor, type ReportOutcome } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

/** A report the inbound listener read, for the delivery its return-path token names. */
export interface ReportedDelivery extends DeliveryReportFor {
  /** The sending domain whose return-path host the report was addressed to. */
  domain: string;
}

export type { ReportOutcome };

/**
 * Applies a DSN or complaint to the delivery its token names, in one transaction
 * (applyReport, docs/api-decisions.md, "Return path"). A delivery of another domain than the
 * one the report was addressed to is as unknown as a forged token.
 */
export async function applyDeliveryReport(db: Database, input: ReportedDelivery): Promise<ReportOutcome> {
  const [owner] = await db`
    select dl.email_id from deliveries dl join emails e on e.id = dl.email_id join domains d on d.id = e.domain_id
     where dl.id = ${input.deliveryId} and d.name = ${input.domain}`;
  if (!owner) return { kind: 'none', reason: 'unknown' };
  const emailId = owner.email_id as string;
  const { answer } = await changeDeliveries(db, [emailId], (messages) => applyReport(messages.get(emailId), input));
  return answer;
}
