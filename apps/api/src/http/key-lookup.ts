import { and, isNull, sql } from 'drizzle-orm';
import { apiKeys, Batcher, type Database } from '@mailer/db';

export interface StoredKey {
  id: string;
  accountId: string;
  kind: 'sending' | 'management';
  keyHash: string;
  scopes: string[];
}

export type KeyLookup = Batcher<string, StoredKey | undefined>;

/**
 * Finds the active (unrevoked) key with a hash. Requests that arrive together share one
 * `key_hash = any(…)` query instead of a round trip each. Nothing is cached: each lookup
 * reads the database after its request arrived, so a revoked key is refused at once.
 */
export function createKeyLookup(db: Database): KeyLookup {
  // One statement text for any number of keys, prepared once per connection.
  const query = db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId, kind: apiKeys.kind, keyHash: apiKeys.keyHash, scopes: apiKeys.scopes })
    .from(apiKeys)
    .where(and(sql`${apiKeys.keyHash} = any(${sql.placeholder('hashes')}::text[])`, isNull(apiKeys.revokedAt)))
    .prepare('find_active_api_keys');
  return new Batcher(async (hashes) => {
    const rows = await query.execute({ hashes: [...new Set(hashes)] });
    const byHash = new Map(rows.map((row) => [row.keyHash, row]));
    return hashes.map((hash) => byHash.get(hash));
  });
}
