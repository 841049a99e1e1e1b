import type { Row } from '../database';
import type { Transaction } from '../transaction';
import type { EmailOwner } from './email-history-store';

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
 * transactions claiming overlapping sets cannot deadlock. Keys are the owner's: an account's
 * test and live requests have separate key spaces (docs/api-decisions.md, "Test mode").
 */
export function claimIdempotencyKeys(tx: Transaction, owner: EmailOwner, claims: IdempotencyClaim[], now: Date, ttlMs: number) {
  const sorted = [...claims].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return tx.sql`
    insert into idempotency_keys (account_id, test, key, request_hash, email_id, response, created_at, expires_at)
    select ${owner.accountId}, ${owner.test}, x.key, x.request_hash, x.email_id, x.response::jsonb, ${now}, ${new Date(now.getTime() + ttlMs)}
      from unnest(${sorted.map((c) => c.key)}::text[], ${sorted.map((c) => c.requestHash)}::text[], ${sorted.map((c) => c.emailId)}::text[],
                  ${sorted.map((c) => JSON.stringify(c.response))}::text[]) with ordinality as x(key, request_hash, email_id, response, n)
     order by x.n
        on conflict (key, account_id, test) do update
       set request_hash = excluded.request_hash, email_id = excluded.email_id, response = excluded.response,
           created_at = excluded.created_at, expires_at = excluded.expires_at
     where idempotency_keys.expires_at <= ${now}
    returning key`;
}

export const claimedKeysFrom = (rows: readonly Row[]) => new Set(rows.map((r) => r.key as string));

/**
 * The live records of these keys that belong to other requests than the given messages: sent
 * after claimIdempotencyKeys in the same transaction, the records of the keys it did not
 * claim (and of keys it read without claiming them). Read with idempotencyRecordsFrom.
 */
export function otherRequestsRecords(tx: Transaction, owner: EmailOwner, keys: string[], ownEmailIds: string[], now: Date) {
  return tx.sql`
    select key, request_hash, response from idempotency_keys
     where account_id = ${owner.accountId} and test = ${owner.test} and key = any(${keys}::text[]) and email_id <> all(${ownEmailIds}::text[])
       and expires_at > ${now}`;
}

export const idempotencyRecordsFrom = (rows: readonly Row[]): Map<string, IdempotencyRecord> =>
  new Map(rows.map((r) => [r.key as string, { requestHash: r.request_hash, response: r.response }]));

/** Gives keys back (their requests were refused): a later request may use them. */
export function releaseIdempotencyKeys(tx: Transaction, owner: EmailOwner, keys: string[]) {
  return tx.sql`delete from idempotency_keys where account_id = ${owner.accountId} and test = ${owner.test} and key = any(${keys}::text[])`;
}
