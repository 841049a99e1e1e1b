import { searchEmails } from '@mailer/db';
import { startTestApi, type TestApi } from '../testing';
import { sendingAccount, type SendingAccount } from '../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api);
});
afterAll(() => api.close());

describe("the console's search by recipient", () => {
  it('finds a message by a to or cc address in any case, never by a BCC address', async () => {
    const sent = await acme.send(acme.message({ to: ['Dana@Example.test'], cc: ['erin@example.test'], bcc: ['only-bcc@example.test'] }));
    expect(sent.status).toBe(202);
    const bccOnly = await acme.send(acme.message({ to: ['frank@example.test'], bcc: ['secret@example.test'] }));
    expect(bccOnly.status).toBe(202);
    const ids = async (recipientKey: string, accountId?: string) =>
      (await searchEmails(api.deps.db, { recipientKey, ...(accountId ? { accountId } : {}) }, undefined, 10)).map((e) => e.id);
    expect(await ids('dana@example.test')).toEqual([sent.body.id]);
    expect(await ids('erin@example.test', acme.accountId)).toEqual([sent.body.id]);
    expect(await ids('only-bcc@example.test')).toEqual([]);
    expect(await ids('secret@example.test')).toEqual([]);
    const other = await api.createAccount();
    expect(await ids('dana@example.test', other.account.id)).toEqual([]);
  });

  it('looks the recipient up in emails_recipient_keys_idx, not by reading every message', async () => {
    const plan = await api.deps.db.begin(async (sql) => {
      // The table is tiny here: without this the planner would rightly read it whole.
      await sql`set local enable_seqscan = off`;
      return sql`explain select id from emails where lower(("to" || cc)::text)::jsonb @> ${JSON.stringify(['dana@example.test'])}::text::jsonb`;
    });
    expect(plan.map((row) => Object.values(row)[0]).join('\n')).toContain('emails_recipient_keys_idx');
  });
});
