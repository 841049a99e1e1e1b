import { ACTIVE_STATUSES } from '@mailer/domain';
import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { statusLiteral, statusSetLiteral } from './status-literals';

describe('delivery statuses as SQL literals', () => {
  let database: DatabaseHandle;

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), 2);
  });
  afterAll(() => database.close());

  it("match, in order, the predicate of the owed deliveries' partial index", async () => {
    const { db } = database;
    const indexes = await db`
      select c.relname as name, pg_get_expr(i.indpred, i.indrelid) as predicate
        from pg_index i join pg_class c on c.oid = i.indexrelid
       where i.indrelid = 'deliveries'::regclass and pg_get_expr(i.indpred, i.indrelid) like '%status%' order by c.relname`;
    expect(indexes.map((i) => i.name)).toEqual(['deliveries_owed_created_idx']);
    // PostgreSQL prints `status in (…)` back as `= ANY (ARRAY[…])`, in the order written.
    const expected = `(status = ANY (ARRAY[${ACTIVE_STATUSES.map((s) => `'${s}'::text`).join(', ')}]))`;
    for (const index of indexes) expect(index.predicate).toBe(expected);
  });

  it('select by status as the bound form would', async () => {
    const { db } = database;
    const [row] = await db`select ${'sending'}::text = ${statusLiteral(db, 'sending')} as one, ${'deferred'}::text in ${statusSetLiteral(db, ACTIVE_STATUSES)} as in_set`;
    expect(row).toEqual({ one: true, in_set: true });
  });

  it('refuse anything that is not a delivery status', () => {
    expect(() => statusLiteral(database.db, "queued' or true --" as never)).toThrow('not a delivery status');
  });
});
