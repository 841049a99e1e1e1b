import postgres from 'postgres';

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

/** `onNotice` receives the server's notices, which the service itself ignores (e.g. "relation already exists, skipping"). */
export function openDatabase(url: string, poolSize = 20, onNotice: (notice: postgres.Notice) => void = () => undefined): DatabaseHandle {
  const db = postgres(url, {
    max: poolSize,
    connect_timeout: 5,
    onnotice: onNotice,
    // An optional value left undefined is stored as NULL, as a column it does not set.
    transform: { undefined: null },
    // Each execution is planned with its parameters and the table's current size. A generic
    // plan, kept by a prepared statement after its fifth run, is only replanned after the next
    // ANALYZE: made while a table was young (or where autovacuum is off), it kept probing the
    // account's every idempotency key for each batch, and intake slowed as the table grew.
    // Planning each costs PostgreSQL about 0.1 ms a statement, the price of plans that follow
    // the tables (docs/api-decisions.md, "Data layer").
    connection: { plan_cache_mode: 'force_custom_plan' },
  });
  return { db, close: () => db.end({ timeout: 5 }) };
}
