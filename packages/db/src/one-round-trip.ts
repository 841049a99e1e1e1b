import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type { Pool, PoolClient, QueryResult } from 'pg';

const dialect = new PgDialect();

/**
 * A value as a PostgreSQL literal, as the driver would have sent it as a parameter: text
 * in single quotes, with the `E''` form and doubled backslashes when it holds any (safe
 * whatever `standard_conforming_strings` says). The literal is untyped, so PostgreSQL
 * infers its type from where it stands, exactly as for a parameter.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`cannot inline ${value}`);
    return `'${value}'`;
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (typeof value !== 'string') throw new TypeError(`cannot inline a ${typeof value} parameter`);
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/** The statement's text with its parameters inlined as literals. */
export function inlineStatement(statement: SQL | string): string {
  if (typeof statement === 'string') return statement;
  const { sql: text, params } = dialect.sqlToQuery(statement);
  // One pass over the rendered text: the inlined values are never rescanned for placeholders.
  return text.replace(/\$(\d+)/g, (_, n: string) => sqlLiteral(params[Number(n) - 1]));
}

/**
 * Sends several statements as one simple-protocol query, so that they cost one round
 * trip instead of one each (the driver does not pipeline). Results come back in order.
 * Inside a transaction, a failing statement skips the rest and leaves the transaction
 * aborted, for the caller to roll back.
 */
export async function queryInOneRoundTrip(client: PoolClient, statements: (SQL | string)[]): Promise<QueryResult[]> {
  const results = (await client.query(statements.map(inlineStatement).join(';\n'))) as QueryResult | QueryResult[];
  return Array.isArray(results) ? results : [results];
}

/**
 * Runs `work` on one pooled connection that it drives itself (begin, statements, commit,
 * see queryInOneRoundTrip). When it fails, whatever transaction is open is rolled back; a
 * connection that cannot even do that is discarded rather than returned to the pool.
 */
export async function withConnection<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    await client.query('rollback').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
