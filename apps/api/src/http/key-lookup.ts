import { and, isNull, sql } from 'drizzle-orm';
import { apiKeys, type Database } from '@mailer/db';

export interface StoredKey {
  id: string;
  accountId: string;
  kind: 'sending' | 'management';
  keyHash: string;
  scopes: string[];
}

type Waiter = { resolve(key: StoredKey | undefined): void; reject(error: unknown): void };

const lookups = new WeakMap<Database, (keyHash: string) => Promise<StoredKey | undefined>>();

/**
 * The active (unrevoked) key with this hash. Requests that arrive together (under load,
 * many are parsed in one turn of the event loop) share one `key_hash = any(…)` query
 * instead of a round trip each. Nothing is cached: each lookup reads the database after
 * the request arrived, so a revoked key is refused at once.
 */
export function findActiveKey(db: Database, keyHash: string): Promise<StoredKey | undefined> {
  let lookup = lookups.get(db);
  if (!lookup) lookups.set(db, (lookup = coalescing(db)));
  return lookup(keyHash);
}

function coalescing(db: Database) {
  // One statement text for any number of keys, prepared once per connection.
  const query = db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId, kind: apiKeys.kind, keyHash: apiKeys.keyHash, scopes: apiKeys.scopes })
    .from(apiKeys)
    .where(and(sql`${apiKeys.keyHash} = any(${sql.placeholder('hashes')}::text[])`, isNull(apiKeys.revokedAt)))
    .prepare('find_active_api_keys');
  let waiting: Map<string, Waiter[]> | undefined;
  const flush = async (batch: Map<string, Waiter[]>) => {
    try {
      const rows = await query.execute({ hashes: [...batch.keys()] });
      const byHash = new Map(rows.map((row) => [row.keyHash, row]));
      for (const [hash, waiters] of batch) for (const w of waiters) w.resolve(byHash.get(hash));
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  };
  return (keyHash: string) =>
    new Promise<StoredKey | undefined>((resolve, reject) => {
      if (!waiting) {
        const batch = (waiting = new Map());
        // After the event loop's poll phase: every request read in this turn joins the batch.
        setImmediate(() => {
          waiting = undefined;
          void flush(batch);
        });
      }
      const list = waiting.get(keyHash);
      if (list) list.push({ resolve, reject });
      else waiting.set(keyHash, [{ resolve, reject }]);
    });
}
