import type { Statement } from './database';
import type { Transaction } from './transaction';

/**
 * The one order in which transactions lock the rows that several writers share, so that
 * they queue behind each other instead of deadlocking:
 *
 *   0. account intake, by account id: a transaction-scoped advisory lock that orders an
 *      account's intake batches (their plan checks and running totals) and nothing else, so
 *      that what intake holds from its plan check to its commit is a lock no delivery asks for
 *      (docs/api-decisions.md, "Data layer", Lock order)
 *   1. deliveries, by id: every delivery of each message a transaction changes (claims
 *      included), so that the message's derived status is computed from rows no one else
 *      can change meanwhile
 *   2. account_usage, by account id (intake's running total; the active-delivery counter)
 *   3. senders, by id (their `last_used_at` and delivery counters)
 *   3a. account_reputation_hours, by account id and hour (the reputation counts the transition
 *      writer adds to; docs/api-decisions.md, "Reputation")
 *   4. webhook_endpoints, by id (their failing streak and status)
 *   5. webhook_deliveries, by id (their attempts and status)
 *
 * A message row (`emails`) is only updated by a transaction that holds the locks of all its
 * deliveries, after them. Every writer of these tables takes its locks through the functions
 * here before it writes; asking for rows of a level below the deepest one held, or for rows
 * of that level not held yet, is a programming error, thrown before anything is sent. Rows
 * already held are not asked for again. Within a level, rows are locked in key order. The
 * rows of levels 2 to 3a are locked by the transition writer after the rows it writes
 * (the caller's own writes to them included, TransitionWrite.sharedRows), so that a
 * transaction holds them for the end of its last round trip only. A change of
 * one webhook endpoint (its owner's update or deletion) is one statement that updates the
 * endpoint row first and then ends its pending webhook deliveries (endPendingWebhookDeliveries):
 * levels 4 then 5, as here.
 */
export const LOCK_LEVELS = ['account_intake', 'deliveries', 'account_usage', 'senders', 'account_reputation_hours', 'webhook_endpoints', 'webhook_deliveries'] as const;
export type LockLevel = (typeof LOCK_LEVELS)[number];

interface Held {
  /** The deepest level entered. */
  rank: number;
  /** The keys held at each level entered. */
  keys: Map<number, Set<string>>;
}

const held = new WeakMap<Transaction, Held>();

/**
 * Enters `level` for `keys`: the keys not held yet, sorted and distinct, which the caller
 * locks now. Throws when the order would be broken.
 */
export function enterLevel(tx: Transaction, level: LockLevel, keys: readonly string[]): string[] {
  const rank = LOCK_LEVELS.indexOf(level);
  const wanted = [...new Set(keys)].sort();
  const current = held.get(tx) ?? { rank: -1, keys: new Map<number, Set<string>>() };
  const holding = current.keys.get(rank);
  const missing = wanted.filter((k) => !holding?.has(k));
  if (missing.length === 0) return [];
  if (rank <= current.rank) throw new Error(`lock order violated: ${level} rows after ${LOCK_LEVELS[current.rank]} rows`);
  current.keys.set(rank, new Set(missing));
  held.set(tx, { rank, keys: current.keys });
  return missing;
}

/** Arbitrary, fixed: the first key of the account intake locks (pg_advisory_xact_lock(int, int)). */
const ACCOUNT_INTAKE_LOCK_CLASS = 52_001;

/**
 * Level 0: an account's intake (read the usage figures after it: see usage-store); a batch is
 * of one account. Two accounts whose ids hash alike share a lock: their intake batches queue
 * behind each other, no more.
 */
export function lockAccountIntake(tx: Transaction, accountId: string): Statement[] {
  if (enterLevel(tx, 'account_intake', [accountId]).length === 0) return [];
  return [tx.sql`select pg_advisory_xact_lock(${ACCOUNT_INTAKE_LOCK_CLASS}::int, hashtext(${accountId}))`];
}

/** Level 2: the accounts' usage rows. */
export function lockAccountUsage(tx: Transaction, accountIds: readonly string[]): Statement[] {
  const ids = enterLevel(tx, 'account_usage', accountIds);
  if (ids.length === 0) return [];
  return [tx.sql`select account_id from account_usage where account_id = any(${ids}::text[]) order by account_id for no key update`];
}

/** The rows of a level keyed by `id` (its table's name), in id order. */
function lockById(tx: Transaction, level: 'senders' | 'webhook_endpoints' | 'webhook_deliveries', keys: readonly string[]): Statement[] {
  const ids = enterLevel(tx, level, keys);
  if (ids.length === 0) return [];
  return [tx.sql`select id from ${tx.sql(level)} where id = any(${ids}::text[]) order by id for no key update`];
}

/** Level 3: sender rows. */
export const lockSenders = (tx: Transaction, senderIds: readonly string[]) => lockById(tx, 'senders', senderIds);

/** Level 4: webhook endpoint rows. */
export const lockWebhookEndpoints = (tx: Transaction, endpointIds: readonly string[]) => lockById(tx, 'webhook_endpoints', endpointIds);

/** Level 5: webhook delivery rows. */
export const lockWebhookDeliveries = (tx: Transaction, deliveryIds: readonly string[]) => lockById(tx, 'webhook_deliveries', deliveryIds);
