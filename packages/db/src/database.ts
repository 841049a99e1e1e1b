import postgres from 'postgres';

/**
 * The one way the service runs SQL: postgres.js tagged templates. Every interpolated value
 * is a bound parameter (lists travel as array parameters, read with `unnest`), each
 * statement text is prepared once per connection by the driver, and rows come back as
 * objects keyed by column name, decoded by the store that asked (see docs/api-decisions.md,
 * "Data layer").
 */
export type Database = postgres.Sql;
/** A statement built with a Database's tag, not yet sent. */
export type Statement<T extends readonly object[] = postgres.Row[]> = postgres.PendingQuery<T extends postgres.Row[] ? T : never>;
export type Row = postgres.Row;

export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

export function openDatabase(url: string, poolSize = 20): DatabaseHandle {
  const db = postgres(url, {
    max: poolSize,
    connect_timeout: 5,
    // Notices (e.g. "relation already exists, skipping") are not the service's business.
    onnotice: () => undefined,
    // An optional value left undefined is stored as NULL, as a column it does not set.
    transform: { undefined: null },
  });
  return { db, close: () => db.end({ timeout: 5 }) };
}
