import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { Pool, type PoolClient } from 'pg';
import * as schema from './schema';

export type Database = NodePgDatabase<typeof schema>;
/** A transaction handle: same query surface as Database. */
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
export type DbOrTx = Database | Tx;

export interface DatabaseHandle {
  db: Database;
  pool: Pool;
  close(): Promise<void>;
}

/**
 * Every statement of the service finds its rows by key, through an index. Prepared
 * statements keep the generic plan made on their sixth run, and a plan made while a young
 * table was small (statistics catch up only at the next autoanalyze) scans the whole table
 * on every later run: measured, the delivery daemon's claim read every message and every
 * delivery per batch until the tables were analyzed again. Sequential scans stay
 * available where no index can serve, at a cost the planner avoids whenever one can.
 */
const KEY_DRIVEN_PLANS = '-c enable_seqscan=off';

export function openDatabase(url: string, poolSize = 20): DatabaseHandle {
  const pool = new Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000, options: KEY_DRIVEN_PLANS });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => undefined);
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

export type { PoolClient };
