import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount, setAccountPlan } from './accounts-store';
import { createTemplate, deleteTemplate, findTemplate, listTemplateVersions, updateTemplate, type Template, type TemplateFields } from './templates-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
});
afterAll(() => database.close());

const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));
const newAccount = async () => (await createAccount(database.db, 'Templates')).account.id;
const fields = (changes: Partial<TemplateFields> = {}): TemplateFields => ({
  name: 'Welcome',
  alias: 'welcome',
  subject: 'Hello {{name}}',
  html: null,
  text: 'Hi {{name}}',
  variables: ['name'],
  ...changes,
});

async function created(accountId: string, f = fields()): Promise<Template> {
  const result = await createTemplate(database.db, accountId, f, at(0));
  if (result.kind !== 'written') throw new Error(`not written: ${result.kind}`);
  return result.template;
}

describe('createTemplate and updateTemplate', () => {
  it('write version 1, then each change as the next version, and a change that changes nothing not at all', async () => {
    const accountId = await newAccount();
    const first = await created(accountId);
    expect(first).toMatchObject({ accountId, version: 1, alias: 'welcome', createdAt: at(0), updatedAt: at(0) });
    expect(await updateTemplate(database.db, first, fields(), at(1))).toEqual({ kind: 'written', template: first });
    const second = await updateTemplate(database.db, first, fields({ subject: 'Welcome, {{name}}' }), at(2));
    expect(second).toMatchObject({ kind: 'written', template: { version: 2, subject: 'Welcome, {{name}}', createdAt: at(0), updatedAt: at(2) } });
    const versions = await listTemplateVersions(database.db, first.id, undefined, 10);
    expect(versions.map((v) => [v.version, v.subject, v.createdAt])).toEqual([
      [2, 'Welcome, {{name}}', at(2)],
      [1, 'Hello {{name}}', at(0)],
    ]);
    expect(await findTemplate(database.db, accountId, { alias: 'welcome' })).toMatchObject({ id: first.id, version: 2 });
  });

  it("keeps an alias to one template of the account until it is deleted, its versions kept; another account's aliases are its own", async () => {
    const accountId = await newAccount();
    const first = await created(accountId);
    expect(await createTemplate(database.db, accountId, fields({ name: 'Other' }), at(1))).toEqual({ kind: 'alias_taken' });
    const other = await created(accountId, fields({ alias: 'other' }));
    expect(await updateTemplate(database.db, other, fields({ alias: 'welcome' }), at(1))).toEqual({ kind: 'alias_taken' });
    expect((await createTemplate(database.db, await newAccount(), fields(), at(1))).kind).toBe('written');

    expect(await deleteTemplate(database.db, accountId, first.id, at(2))).toBe(true);
    expect(await deleteTemplate(database.db, accountId, first.id, at(2))).toBe(false);
    expect(await findTemplate(database.db, accountId, { id: first.id })).toBeUndefined();
    expect(await listTemplateVersions(database.db, first.id, undefined, 10)).toHaveLength(1);
    expect(await updateTemplate(database.db, first, fields({ subject: 'Changed' }), at(3))).toEqual({ kind: 'not_found' });
    expect((await updateTemplate(database.db, other, fields({ alias: 'welcome' }), at(3))).kind).toBe('written');
  });

  it("refuses a template past the plan's max_templates, counting concurrent creations and not deleted templates", async () => {
    const accountId = await newAccount();
    await setAccountPlan(database.db, accountId, { maxTemplates: 2 });
    const results = await Promise.all(['a', 'b', 'c'].map((alias) => createTemplate(database.db, accountId, fields({ alias }), at(0))));
    expect(results.map((r) => r.kind).sort()).toEqual(['limit_reached', 'written', 'written']);
    expect(results.find((r) => r.kind === 'limit_reached')).toEqual({ kind: 'limit_reached', existing: 2, max: 2 });
    const written = results.flatMap((r) => (r.kind === 'written' ? [r.template] : []));
    await deleteTemplate(database.db, accountId, written[0]!.id, at(1));
    expect((await createTemplate(database.db, accountId, fields({ alias: 'd' }), at(2))).kind).toBe('written');
  });
});
