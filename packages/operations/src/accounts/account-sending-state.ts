import { findSendingState, type Queryable } from '@mailer/db';
import { toSending, type SendingRepresentation } from './sending-representation';

/**
 * An account's sending status and rates now (docs/api-decisions.md, "Reputation"): the `sending`
 * of GET /v1/account, the CLI's `account show` and /metrics. Undefined for an unknown account.
 */
export async function accountSendingState(db: Queryable, accountId: string, now: Date): Promise<SendingRepresentation | undefined> {
  const state = await findSendingState(db, accountId, now);
  return state && toSending(state);
}
