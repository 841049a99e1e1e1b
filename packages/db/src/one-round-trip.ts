import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type { Pool, PoolClient, QueryResult } from 'pg';

const dialect = new PgDialect();

/**
 * A value as a PostgreSQL literal, as the driver would have sent it as a parameter: text
 * in single quotes, with the `E''` form and doubled backslashes when it holds any (safe
 * whatever `standard_conforming_strings` says). The literal is untyped, so PostgreSQL
 * infers its type from where it stands, exactly as for a parameter; an array becomes an
 * array constructor of such literals, for a parameter cast to an array type.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`cannot inline ${value}`);
    return `'${value}'`;
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return `'${value.toISOString()}'`;
  // An array constructor of literals: each element is read as a plain literal, where an
  // array's text form ('{...}') would be scanned again, character by character.
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(sqlLiteral).join(', ')}]`;
  if (typeof value !== 'string') throw new TypeError(`cannot inline a ${typeof value} parameter`);
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/** The statement's text with its parameters inlined as literals. */
export function inlineStatement(statement: SQL | string): string {
  return executableText(render(statement));
}

/**
 * Statement texts get a server-side prepared statement on each connection that runs them,
 * so PostgreSQL parses, analyses and plans each text once per connection instead of once
 * per batch (that was about a third of its work per accepted message). Names are per
 * process, by text; texts beyond the bound run unprepared, so a caller that built texts
 * from data could not grow every session without end.
 */
const MAX_PREPARED_TEXTS = 100;
const preparedNames = new Map<string, string>();
const preparedOn = new WeakMap<PoolClient, Set<string>>();

function preparedName(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED_TEXTS) {
    name = `one_round_trip_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name;
}

interface RenderedStatement {
  text: string;
  params: unknown[];
  /** Its prepared statement's name; none for plain texts and texts beyond the bound. */
  name?: string;
}

function render(statement: SQL | string): RenderedStatement {
  if (typeof statement === 'string') return { text: statement, params: [] };
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return { text, params };
}

const renderPrepared = (statement: SQL | string): RenderedStatement => {
  const rendered = render(statement);
  return rendered.params.length > 0 ? { ...rendered, name: preparedName(rendered.text) } : rendered;
};

/** Simple-protocol text: `EXECUTE name(literals…)` when prepared, else the text with literals inlined. */
function executableText({ text, params, name }: RenderedStatement): string {
  if (name !== undefined) return `execute ${name}(${params.map(sqlLiteral).join(', ')})`;
  // One pass over the rendered text: the inlined values are never rescanned for placeholders.
  return params.length === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => sqlLiteral(params[Number(n) - 1]));
}

/**
 * Prepares on this connection the statements it has not prepared yet, each in a query of
 * its own: PREPARE is not undone by a rollback, so only a PREPARE that answered is
 * recorded and the record never disagrees with the session.
 */
async function prepareMissing(client: PoolClient, statements: RenderedStatement[]): Promise<void> {
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  for (const { text, name } of statements) {
    if (name === undefined || prepared.has(name)) continue;
    await client.query(`prepare ${name} as ${text}`);
    prepared.add(name);
  }
}

/**
 * Sends several statements as one simple-protocol query, so that they cost one round
 * trip instead of one each (the driver does not pipeline). Results come back in order.
 * Inside a transaction, a failing statement skips the rest and leaves the transaction
 * aborted, for the caller to roll back.
 */
export async function queryInOneRoundTrip(client: PoolClient, statements: (SQL | string)[]): Promise<QueryResult[]> {
  const rendered = statements.map(renderPrepared);
  await prepareMissing(client, rendered);
  const results = (await client.query(rendered.map(executableText).join(';\n'))) as QueryResult | QueryResult[];
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
