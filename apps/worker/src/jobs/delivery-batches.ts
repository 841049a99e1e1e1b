import { leaseTiming } from '@mailer/domain';
import { Batcher, claimMessages, stillLeased, loadMessageContents, writeAttempts, type AttemptWrite, type Claim, type Database, type HeldLease, type MessageContent, type RecordedAttempt } from '@mailer/operations';

/**
 * The database calls of concurrent delivery jobs, each kind batched (see Batcher). A record
 * goes out as soon as the one before it is answered, never held back to gather more: a
 * message a server accepted is on record within two transactions' time, and a daemon that
 * dies can only send again what it had not recorded yet (docs/api-decisions.md, "Delivery",
 * the duplicate case). Concurrent records would only queue on the sender's and the account's
 * rows, which every record of one sender moves.
 */
export interface DeliveryBatches {
  /** Claims (context and lease); undefined for a message that does not exist. */
  claims: Batcher<string, Claim | undefined>;
  /** Contents of the messages being built; undefined once purged. */
  contents: Batcher<string, MessageContent | undefined>;
  /** Attempt records. */
  attempts: Batcher<AttemptWrite, RecordedAttempt>;
  /**
   * The lease checked right before a transaction: the deliveries PostgreSQL still has
   * `sending` under it, past the margin at which the lease keeper stops an attempt, the only
   * ones the transaction may carry.
   */
  leaseChecks: Batcher<HeldLease, string[]>;
}

/**
 * A record takes milliseconds; one unanswered this long (a statement the driver lost at a
 * database crash) is failed and written again, under its lease token (a late first write
 * leaves the second nothing to apply), rather than holding every later record back.
 */
export const RECORD_STALL_MS = 5_000;

/**
 * A claim or content read left unanswered for a whole lease is stalled (see BatcherOptions): it fails, and the
 * next ones go out, rather than every later job waiting behind it.
 */
/**
 * `writeJournal` writes the records the daemon's journal holds (see AttemptJournal); it rejects
 * while the database does not take them.
 */
export function createDeliveryBatches(db: Database, leaseMs: number, now: () => Date, writeJournal: () => Promise<void>): DeliveryBatches {
  const { stopBeforeExpiryMs } = leaseTiming(leaseMs);
  return {
    // A claim follows the journal's records: none takes a delivery whose outcome this daemon holds unwritten.
    claims: new Batcher(async (emailIds) => {
      await writeJournal();
      return claimEach(db, emailIds, now(), leaseMs);
    }, { stallMs: leaseMs }),
    contents: new Batcher(
      async (emailIds) => {
        const contents = await loadMessageContents(db, emailIds);
        return emailIds.map((id) => contents.get(id));
      },
      { stallMs: leaseMs },
    ),
    attempts: new Batcher((writes) => writeAttempts(db, writes), { stallMs: RECORD_STALL_MS }),
    leaseChecks: new Batcher(
      async (leases) => {
        const held = await stillLeased(db, leases, new Date(now().getTime() + stopBeforeExpiryMs));
        return leases.map((l) => l.deliveryIds.filter((id) => held.has(id)));
      },
      { stallMs: RECORD_STALL_MS },
    ),
  };
}

/**
 * Claims for each job of a batch. Two jobs of one message must not both get its lease: the
 * first gets the claim, the others the context with nothing leased, as if they had come second.
 */
async function claimEach(db: Database, emailIds: string[], now: Date, leaseMs: number): Promise<(Claim | undefined)[]> {
  const claims = await claimMessages(db, [...new Set(emailIds)], now, leaseMs);
  const seen = new Set<string>();
  return emailIds.map((id) => {
    const found = claims.get(id);
    if (!found || !seen.has(id)) {
      seen.add(id);
      return found;
    }
    return { context: found.context, lease: { ...found.lease, deliveries: [] } };
  });
}
