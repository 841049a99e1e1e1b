import type postgres from 'postgres';
import { planClockOf, type Database, type Statement } from './database';

type Results<T extends readonly Statement[]> = { -readonly [K in keyof T]: postgres.RowList<postgres.Row[]> };
/** Statements (or lists of them) sent together under names, so that their results are read by name. */
export type NamedStatements = Record<string, Statement | readonly Statement[]>;
type Result = postgres.RowList<postgres.Row[]>;
type NamedResults<T extends NamedStatements> = { [K in keyof T]: T[K] extends readonly Statement[] ? Result[] : Result };

/**
 * A transaction on one reserved connection, sent in the round trips its caller chooses.
 * postgres.js pipelines the statements given together (one write, answers in order); BEGIN
 * goes out with the first of them and COMMIT with the last, so a transaction of three
 * round trips costs three, where `sql.begin` would add one for BEGIN and one for COMMIT.
 * That matters on the hot paths, whose row locks are held from their first statement to
 * the commit.
 */
export interface Transaction {
  /** The tag for this transaction's statements (a statement awaited on it alone is its own round trip). */
  readonly sql: postgres.ReservedSql;
  /** Sends the statements together and waits for every answer (by name when they are given by name). */
  send<T extends NamedStatements>(statements: T): Promise<NamedResults<T>>;
  send<T extends readonly Statement[]>(...statements: T): Promise<Results<T>>;
  /** Sends the statements together, followed by COMMIT. */
  commit<T extends NamedStatements>(statements: T): Promise<NamedResults<T>>;
  commit<T extends readonly Statement[]>(...statements: T): Promise<Results<T>>;
}

const isNamed = (args: readonly unknown[]): args is [NamedStatements] =>
  args.length === 1 && typeof (args[0] as { then?: unknown }).then !== 'function';

export interface TransactionOptions {
  /**
   * The transaction's statements run on generic plans (see DatabaseOptions) on a connection
   * that plans each execution: intake's, the API's one hot transaction, whose statements
   * read and write rows by key.
   */
  genericPlans?: boolean;
}

/**
 * How long a connection keeps the generic plans it made. PostgreSQL replans a generic plan
 * only after an ANALYZE of its tables: where autovacuum is off, or while a young table grows
 * faster than autovacuum analyzes it, a plan made while `deliveries` held a few hundred rows
 * (a sequential scan, the cheapest then) would be kept as the table grows. Discarded this
 * often, such a plan costs a young installation seconds, not its life (docs/api-decisions.md,
 * "Data layer", Plans).
 */
export const PLAN_LIFETIME_MS = 10_000;

/** When each connection (postgres.js's backend object, one per pooled connection) last discarded its plans. */
const plansDiscardedAt = new WeakMap<object, number>();

/**
 * Whether the connection's plans are PLAN_LIFETIME_MS old, in which case their clock starts
 * again; a connection seen for the first time starts its clock.
 */
function plansAgedOut(backend: object, now: number): boolean {
  const since = plansDiscardedAt.get(backend);
  if (since !== undefined && now - since < PLAN_LIFETIME_MS) return false;
  plansDiscardedAt.set(backend, now);
  return since !== undefined;
}

/**
 * Gives the connection back to the pool, after `discard plans` when its plans have aged out
 * (its prepared statements stay, and each is planned again at its next execution); the
 * transaction's caller does not wait for that.
 */
function release(sql: postgres.ReservedSql, backend: object | undefined, now: number): void {
  if (!backend || !plansAgedOut(backend, now)) return sql.release();
  void sql`discard plans`
    .execute()
    .catch(() => undefined)
    .finally(() => sql.release());
}

/**
 * Runs `work` in a transaction (see Transaction). When `work` returns without committing,
 * its writes are committed then; when anything fails, the transaction is rolled back and
 * the error rethrown. A statement that fails makes the ones pipelined after it fail too
 * (the transaction is aborted), so nothing half-written can be committed.
 */
export async function inTransaction<T>(db: Database, work: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const sql = await db.reserve();
  // Queued now, written with whatever the work sends first.
  const begun = sql`begin`.execute();
  const generic = options.genericPlans ? sql`set local plan_cache_mode = force_generic_plan`.execute() : undefined;
  // Awaited with the first statements; a work that fails before sending any rolls back.
  begun.catch(() => undefined);
  generic?.catch(() => undefined);
  let backend: object | undefined;
  let committed = false;
  const send = async (statements: readonly Statement[], commit: boolean) => {
    if (committed) throw new Error('the transaction has already committed');
    if (commit) committed = true;
    const [opened, , ...results] = await Promise.all([begun, generic, ...statements, ...(commit ? [sql`commit`] : [])]);
    backend = opened.state;
    return results.slice(0, statements.length);
  };
  const sendEither = async (args: unknown[], commit: boolean) => {
    if (!isNamed(args)) return send(args as Statement[], commit);
    const entries = Object.entries(args[0]);
    const results = await send(entries.flatMap(([, s]) => (Array.isArray(s) ? s : [s])), commit);
    let at = 0;
    return Object.fromEntries(
      entries.map(([name, s]) => {
        const count = Array.isArray(s) ? s.length : 1;
        const mine = results.slice(at, (at += count));
        return [name, Array.isArray(s) ? mine : mine[0]];
      }),
    );
  };
  const tx: Transaction = {
    sql,
    send: ((...args: unknown[]) => sendEither(args, false)) as Transaction['send'],
    commit: ((...args: unknown[]) => sendEither(args, true)) as Transaction['commit'],
  };
  try {
    const result = await work(tx);
    if (!committed) await send([], true);
    return result;
  } catch (error) {
    await sql`rollback`.catch(() => undefined);
    throw error;
  } finally {
    release(sql, backend, planClockOf(db)());
  }
}
