import { Batcher } from '../batcher';
import type { Database, Row } from '../database';

export interface StoredKey {
  id: string;
  accountId: string;
  kind: 'sending' | 'management';
  keyHash: string;
  scopes: string[];
}

export type KeyLookup = Batcher<string, StoredKey | undefined>;

const toStoredKey = (r: Row): StoredKey => ({ id: r.id, accountId: r.account_id, kind: r.kind, keyHash: r.key_hash, scopes: r.scopes });

/**
 * Finds the active (unrevoked) key with a hash. Requests that arrive together share one
 * `key_hash = any(…)` query instead of a round trip each. Nothing is cached: each lookup
 * reads the database after its request arrived, so a revoked key is refused at once.
 */
export function createKeyLookup(db: Database): KeyLookup {
  return new Batcher(async (hashes) => {
    // One statement text for any number of keys, prepared once per connection.
    const rows = await db`
      select id, account_id, kind, key_hash, scopes from api_keys
      where key_hash = any(${[...new Set(hashes)]}::text[]) and revoked_at is null`;
    const byHash = new Map(rows.map((row) => [row.key_hash as string, toStoredKey(row)]));
    return hashes.map((hash) => byHash.get(hash));
  });
}
