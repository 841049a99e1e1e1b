import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../database';
import { idempotencyKeys } from '../schema/intake';

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
 * Returns the keys claimed; the others are live records of earlier requests. A key
 * being claimed by a concurrent transaction makes this wait until that one ends, which
 * is what lets concurrent requests with one key create one message. Keys of one
 * statement must be distinct; they are written in sorted order so that transactions
 * claiming overlapping sets cannot deadlock.
 */
export async function claimIdempotencyKeys(
  tx: DbOrTx,
  accountId: string,
  claims: IdempotencyClaim[],
  now: Date,
  ttlMs: number,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = [...claims]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((c, n) => ({ n, key: c.key, request_hash: c.requestHash, email_id: c.emailId, response: c.response }));
  // One JSON row set rather than a VALUES list: the same statement text whatever the batch size.
  const result = await tx.execute(sql`
    insert into idempotency_keys (account_id, key, request_hash, email_id, response, created_at, expires_at)
    select ${accountId}, x.key, x.request_hash, x.email_id, x.response, ${now}, ${new Date(now.getTime() + ttlMs)}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(n integer, key text, request_hash text, email_id text, response jsonb)
    order by x.n
    on conflict (account_id, key) do update
      set request_hash = excluded.request_hash, email_id = excluded.email_id, response = excluded.response,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where ${idempotencyKeys.expiresAt} <= ${now}
    returning key`);
  return new Set((result.rows as { key: string }[]).map((r) => r.key));
}

export async function findIdempotencyRecords(tx: DbOrTx, accountId: string, keys: string[]): Promise<Map<string, IdempotencyRecord>> {
  if (keys.length === 0) return new Map();
  const rows = await tx
    .select({ key: idempotencyKeys.key, requestHash: idempotencyKeys.requestHash, response: idempotencyKeys.response })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, accountId), inArray(idempotencyKeys.key, keys)));
  return new Map(rows.map((r) => [r.key, { requestHash: r.requestHash, response: r.response }]));
}
