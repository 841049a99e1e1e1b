import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { MIGRATIONS_FOLDER } from '../migrate';
import { createAccount } from './accounts-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const usageOf = async (accountId: string) =>
  (await database.db`select recipients_total, active_deliveries from account_usage where account_id = ${accountId}`).map((r) => ({
    total: Number(r.recipients_total),
    active: r.active_deliveries as number,
  }));

describe('createAccount', () => {
  it('is created with its usage row, which intake only locks and reads', async () => {
    const { account } = await createAccount(database.db, 'Fresh');
    expect(await usageOf(account.id)).toEqual([{ total: 0, active: 0 }]);
  });

  it('created before usage rows came with accounts gets its row from migration 0017, and one that has a row keeps it', async () => {
    const older = (await createAccount(database.db, 'Older')).account.id;
    const busy = (await createAccount(database.db, 'Busy')).account.id;
    await database.db`delete from account_usage where account_id = ${older}`;
    await database.db`update account_usage set recipients_total = 7, active_deliveries = 2 where account_id = ${busy}`;
    await database.db.unsafe(readFileSync(path.join(MIGRATIONS_FOLDER, '0017_account_usage_with_account.sql'), 'utf8'));
    expect(await usageOf(older)).toEqual([{ total: 0, active: 0 }]);
    expect(await usageOf(busy)).toEqual([{ total: 7, active: 2 }]);
  });
});
