import { recordEngagements, type EngagementOutcome, type EngagementRecord } from '@mailer/domain';
import { Batcher } from '../batcher';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

export type { EngagementOutcome, EngagementRecord };

/** The message a tracking token's delivery belongs to, with the links its click tokens name by index (null: clicks not tracked). */
export interface TrackedDelivery {
  emailId: string;
  trackedLinks: string[] | null;
}

export type TrackedDeliveryLookup = Batcher<string, TrackedDelivery | undefined>;

/**
 * Finds the deliveries tracking tokens name (docs/api-decisions.md, "Opens and clicks"): the
 * opens and clicks that arrive together share one `id = any(…)` query instead of a round trip
 * each, as every recipient's mail client may fetch at once.
 */
export function createTrackedDeliveryLookup(db: Database): TrackedDeliveryLookup {
  return new Batcher(async (deliveryIds) => {
    const rows = await db`
      select d.id, d.email_id, e.tracked_links from deliveries d join emails e on e.id = d.email_id where d.id = any(${[...new Set(deliveryIds)]}::text[])`;
    const byId = new Map(rows.map((r) => [r.id as string, { emailId: r.email_id as string, trackedLinks: r.tracked_links as string[] | null }]));
    return deliveryIds.map((id) => byId.get(id));
  });
}

export type EngagementRecorder = Batcher<EngagementRecord, EngagementOutcome>;

/**
 * Records opens and clicks (recordEngagements): those that arrive together in one
 * transaction through the one writer of deliveries, with their events, webhooks and the
 * first one's stamp, instead of a transaction each.
 */
export function createEngagementRecorder(db: Database): EngagementRecorder {
  return new Batcher(async (records) => {
    const emailIds = [...new Set(records.map((r) => r.emailId))];
    return (await changeDeliveries(db, emailIds, (messages) => recordEngagements(messages, records))).answer;
  });
}

/** The links of a tracked delivery whose message retention deleted, until its click tokens expire (retired_tracked_links). */
export async function findRetiredTrackedLinks(db: Database, deliveryId: string, now: Date): Promise<string[] | undefined> {
  const [row] = await db`select links from retired_tracked_links where delivery_id = ${deliveryId} and expires_at > ${now}`;
  return row?.links as string[] | undefined;
}
