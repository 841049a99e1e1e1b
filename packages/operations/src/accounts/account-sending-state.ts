import { findSendingStates, type Queryable } from '@mailer/db';
import type { EmailType } from '@mailer/domain';
import { toSending, type SendingRepresentation } from './sending-representation';

/**
 * Each stream's sending status and rates now (docs/api-decisions.md, "Reputation", "Streams"):
 * the `sending` and `streams` of GET /v1/account, the CLI's `account show` and the console.
 * Undefined for an unknown account.
 */
export async function accountSendingState(db: Queryable, accountId: string, now: Date): Promise<Record<EmailType, SendingRepresentation> | undefined> {
  const states = await findSendingStates(db, accountId, now);
  if (states.length === 0) return undefined;
  return Object.fromEntries(states.map((s) => [s.stream, toSending(s)])) as Record<EmailType, SendingRepresentation>;
}
