import { Batcher } from '../batcher';
import type { Database, Row } from '../database';

export interface StoredKey {
  id: string;
  accountId: string;
  kind: 'sending' | 'management';
  keyHash: string;
  /** A test sending key (docs/api-decisions.md, "Test mode"). */
  test: boolean;
  scopes: string[];
}

export type KeyLookup = Batcher<string, StoredKey | undefined>;

const toStoredKey = (r: Row): StoredKey => ({ id: r.id, accountId: r.account_id, kind: r.kind, keyHash: r.key_hash, test: r.test, scopes: r.scopes });

/**
 * Finds the active key with a hash: not revoked, of an account an operator has not disabled
 * (docs/api-decisions.md, "Queue operations": a disabled account's keys answer 401 as unknown ones). Requests that arrive together share one
 * `key_hash = any(…)` query instead of a round trip each. Nothing is cached: each lookup
 * reads the database after its request arrived, so a revoked key is refused at once.
 */
export function createKeyLookup(db: Database): KeyLookup {
  return new Batcher(async (hashes) => {
    // One statement text for any number of keys, prepared once per connection.
    const rows = await db`
      select k.id, k.account_id, k.kind, k.key_hash, k.test, k.scopes from api_keys k join accounts a on a.id = k.account_id
      where k.key_hash = any(${[...new Set(hashes)]}::text[]) and k.revoked_at is null and a.disabled_at is null`;
    const byHash = new Map(rows.map((row) => [row.key_hash as string, toStoredKey(row)]));
    return hashes.map((hash) => byHash.get(hash));
  });
}
