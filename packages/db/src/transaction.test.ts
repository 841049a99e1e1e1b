import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from './database';
import { isDatabaseUnavailable } from './database-errors';
import { inTransaction } from './transaction';

/**
 * A PostgreSQL crash or restart ends the backends under the daemon's and the API's
 * connections. The driver then rejects what was sent on them, and the process lives on:
 * postgres.js 3.4.9 instead threw from a timer when a statement (the rollback after such a
 * failure) was written to a connection whose socket had closed, and took the whole process
 * down; the chaos run saw every API and daemon exit at a PostgreSQL restart
 * (docs/api-decisions.md, "Data layer").
 */
describe('a backend that dies under a transaction', () => {
  let database: DatabaseHandle;
  const uncaught: Error[] = [];
  const record = (error: Error) => uncaught.push(error);

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), 1);
    process.on('uncaughtException', record);
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    await database.close();
  });

  it('fails the transaction as the database being unavailable, and the process and the pool live on', async () => {
    const failure = await inTransaction(database.db, async (tx) => {
      await tx.send(tx.sql`select 1`);
      // The backend ends as in `pg_ctl restart -m immediate`; the next statement and the rollback meet a closed connection.
      await tx.send(tx.sql`select pg_terminate_backend(pg_backend_pid())`).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx.send(tx.sql`select 2`);
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    // The rollback's write (and any other) is settled on the next turns of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(uncaught).toEqual([]);
    const [row] = await database.db`select 3 as n`;
    expect(row!.n).toBe(3);
  });
});
