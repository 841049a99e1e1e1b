import type postgres from 'postgres';
import type { Database, Statement } from './database';

type Results<T extends readonly Statement[]> = { -readonly [K in keyof T]: postgres.RowList<postgres.Row[]> };

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
  /** Sends the statements together and waits for every answer. */
  send<T extends readonly Statement[]>(...statements: T): Promise<Results<T>>;
  /** Sends the statements together, followed by COMMIT. */
  commit<T extends readonly Statement[]>(...statements: T): Promise<Results<T>>;
}

/**
 * Runs `work` in a transaction (see Transaction). When `work` returns without committing,
 * its writes are committed then; when anything fails, the transaction is rolled back and
 * the error rethrown. A statement that fails makes the ones pipelined after it fail too
 * (the transaction is aborted), so nothing half-written can be committed.
 */
export async function inTransaction<T>(db: Database, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const sql = await db.reserve();
  // Queued now, written with whatever the work sends first.
  const begun = sql`begin`.execute();
  // Awaited with the first statements; a work that fails before sending any rolls back.
  begun.catch(() => undefined);
  let committed = false;
  const send = async (statements: readonly Statement[], commit: boolean) => {
    if (committed) throw new Error('the transaction has already committed');
    if (commit) committed = true;
    const [, ...results] = await Promise.all([begun, ...statements, ...(commit ? [sql`commit`] : [])]);
    return results.slice(0, statements.length);
  };
  const tx: Transaction = {
    sql,
    send: (...statements) => send(statements, false) as never,
    commit: (...statements) => send(statements, true) as never,
  };
  try {
    const result = await work(tx);
    if (!committed) await send([], true);
    return result;
  } catch (error) {
    await sql`rollback`.catch(() => undefined);
    throw error;
  } finally {
    sql.release();
  }
}
