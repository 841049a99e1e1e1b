import { sql, type SQL } from 'drizzle-orm';
import { jsonb } from './jsonb';

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
  emailId: string;
  /** The 202 body this request will get if accepted; replayed for the key afterwards. */
  response: Record<string, unknown>;
}

export interface IdempotencyRecord {
  requestHash: string;
  response: Record<string, unknown>;
}

/**
 * Claims each key for this transaction: inserted when new, taken over when expired.
 * Returns the keys claimed (read with claimedKeysFrom); the others are live records of
 * earlier requests. A key being claimed by a concurrent transaction makes this wait until
 * that one ends, which is what lets concurrent requests with one key create one message.
 * Keys of one statement must be distinct; they are written in sorted order so that
 * transactions claiming overlapping sets cannot deadlock.
 */
export function claimIdempotencyKeysStatement(accountId: string, claims: IdempotencyClaim[], now: Date, ttlMs: number): SQL {
  const rows = [...claims]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((c, n) => ({ n, key: c.key, request_hash: c.requestHash, email_id: c.emailId, response: c.response }));
  return sql`
    insert into idempotency_keys (account_id, key, request_hash, email_id, response, created_at, expires_at)
    select ${accountId}, x.key, x.request_hash, x.email_id, x.response, ${now}, ${new Date(now.getTime() + ttlMs)}
    from jsonb_to_recordset(${jsonb(rows)}) as x(n integer, key text, request_hash text, email_id text, response jsonb)
    order by x.n
    on conflict (account_id, key) do update
      set request_hash = excluded.request_hash, email_id = excluded.email_id, response = excluded.response,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ${now}
    returning key`;
}

export const claimedKeysFrom = (result: { rows: unknown[] }) => new Set((result.rows as { key: string }[]).map((r) => r.key));

/**
 * The account's rows of these keys (`i`, with `i.row_id` its ctid), as a FROM item: one
 * unique-index lookup per key. OFFSET 0 keeps the planner from turning the lookups into a
 * scan of every key of the account, which a prepared statement's generic plan chose on
 * statistics taken while the table was small.
 */
export const rowsOfKeys = (accountId: string, keys: string[]): SQL => sql`
  jsonb_array_elements_text(${jsonb(keys)}) as k(key)
  cross join lateral (
    select ctid as row_id, key, request_hash, response, email_id from idempotency_keys
    where account_id = ${accountId} and key = k.key offset 0
  ) i`;

/**
 * The records of these keys that belong to other requests than the given messages: run
 * after claimIdempotencyKeysStatement in the same transaction, the live records of the
 * keys it did not claim. Read with idempotencyRecordsFrom.
 */
export function otherRequestsRecordsStatement(accountId: string, keys: string[], ownEmailIds: string[]): SQL {
  return sql`
    select i.key, i.request_hash, i.response from ${rowsOfKeys(accountId, keys)}
    where i.email_id <> all(array(select jsonb_array_elements_text(${jsonb(ownEmailIds)})))`;
}

export function idempotencyRecordsFrom(result: { rows: unknown[] }): Map<string, IdempotencyRecord> {
  const rows = result.rows as { key: string; request_hash: string; response: Record<string, unknown> }[];
  return new Map(rows.map((r) => [r.key, { requestHash: r.request_hash, response: r.response }]));
}
