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

// Its plan over 40,000 messages (through emails_recipient_keys_idx) is checked by apps/worker/src/query-plans.test.ts.
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
});
