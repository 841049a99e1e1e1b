import postgres from 'postgres';
import { parseDatabaseUrl } from '@mailer/config';

/**
 * The one way the service runs SQL: postgres.js tagged templates. Every interpolated value
 * is a bound parameter (lists travel as array parameters, read with `unnest`), each
 * statement text is prepared once per connection by the driver, and rows come back as
 * objects keyed by column name, decoded by the store that asked (see docs/api-decisions.md,
 * "Data layer").
 */
export type Database = postgres.Sql;
/**
 * What a statement can be built with and sent through: the pool, a transaction's reserved
 * connection (inTransaction), or postgres.js's own `begin` scope.
 */
export type Queryable = postgres.ISql<{}>;
/** A statement built with a tag, not yet sent. */
export type Statement = postgres.PendingQuery<postgres.Row[]>;
export type Row = postgres.Row;

/**
 * postgres.js types an array parameter by its first element and has no array type for
 * Date elements, and it would serialize text given for a boolean array as false: such
 * columns travel as text arrays, cast in the statement (`::text[]::timestamptz[]`,
 * `::text[]::boolean[]`).
 */
export const timestampsParam = (values: readonly (Date | null)[]): (string | null)[] => values.map((v) => v?.toISOString() ?? null);
export const booleansParam = (values: readonly boolean[]): string[] => values.map((v) => (v ? 'true' : 'false'));

export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * Every statement runs on the generic plan PostgreSQL keeps for it (`force_generic_plan`)
   * instead of being planned at each execution. For the delivery daemon, whose statements
   * read and write rows by key or by indexed ranges: planning them costs PostgreSQL more than
   * running them, and their plans do not depend on the values. A connection's plans are
   * remade once they are PLAN_LIFETIME_MS old (inTransaction), so they follow the tables'
   * sizes. Off by default: the API's reads that integrators filter have plans that depend on
   * the filter (a rare tag through its index, a common one without), and its hot transaction
   * asks for generic plans itself (TransactionOptions).
   */
  genericPlans?: boolean;
  /** Receives the server's notices, which the service itself ignores (e.g. "relation already exists, skipping"). */
  onNotice?: (notice: postgres.Notice) => void;
  /** The clock (milliseconds) that ages the connections' plans; `performance.now` unless a test reads it at chosen times. */
  planClock?: () => number;
}

const planClocks = new WeakMap<Database, () => number>();

/** The clock that ages `db`'s plans (DatabaseOptions.planClock). */
export const planClockOf = (db: Database): (() => number) => planClocks.get(db) ?? (() => performance.now());

/**
 * Of several hosts (a primary and its standbys), only the one out of recovery: after a
 * failover new connections find the promoted standby (docs/api-decisions.md, "Running
 * several machines").
 */
export function primaryOnly(url: string): { target_session_attrs?: 'primary' } {
  const named = parseDatabaseUrl(url);
  return 'hosts' in named && named.hosts.length > 1 ? { target_session_attrs: 'primary' } : {};
}

export function openDatabase(url: string, poolSize = 20, options: DatabaseOptions = {}): DatabaseHandle {
  const db = postgres(url, {
    max: poolSize,
    ...primaryOnly(url),
    connect_timeout: 5,
    onnotice: options.onNotice ?? (() => undefined),
    // An optional value left undefined is stored as NULL, as a column it does not set.
    transform: { undefined: null },
    connection: {
      // Unless asked for generic plans, each execution is planned with its parameters and the
      // tables' current sizes. PostgreSQL's own choice (`auto`) is not taken: it keeps a generic
      // plan priced against the custom plans of a statement's first five executions, made while
      // its tables were young, and replans only after an ANALYZE (docs/api-decisions.md, "Data
      // layer", Plans).
      plan_cache_mode: options.genericPlans ? 'force_generic_plan' : 'force_custom_plan',
      // Pages come from memory or SSD; at PostgreSQL's default of 4, which prices spinning
      // disks, a generic plan of an update by key over a list of ids made while the table holds
      // about a thousand rows is a hash join over a sequential scan (docs/api-decisions.md,
      // "Data layer", Plans).
      random_page_cost: '1.1',
    },
  });
  if (options.planClock) planClocks.set(db, options.planClock);
  return { db, close: () => db.end({ timeout: 5 }) };
}
