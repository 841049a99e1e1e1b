import { startSubmissionHarness, type RawSession, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/** Message data held at once (MAX_BODY_BYTES_IN_FLIGHT, MAX_BODY_BYTES_PER_ACCOUNT), the API's rule. */
const MIB = 1024 * 1024;
let h: SubmissionHarness;
let accounts: SubmittingAccount[];

beforeAll(async () => {
  h = await startSubmissionHarness({ MAX_BODY_BYTES_IN_FLIGHT: String(32 * MIB), MAX_BODY_BYTES_PER_ACCOUNT: String(16 * MIB) });
  accounts = await Promise.all(['a.test', 'b.test', 'c.test', 'd.test'].map((domain) => h.account({ domain })));
});
afterAll(() => h.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 9.7 MB message, the penetration test's (a 7.1 MB attachment), up to its end of data (not sent). */
const bigMessage = (account: SubmittingAccount, subject: string) => {
  const attachment = Buffer.alloc(7_100_000, 7).toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    `From: ${account.sender}`,
    'To: ann@example.test',
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'The invoice.',
    '--b',
    'Content-Type: application/octet-stream; name="invoice.bin"',
    'Content-Disposition: attachment; filename="invoice.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    attachment,
    '--b--',
  ].join('\r\n');
};

/** A logged-in session of `account` in DATA, having sent `message` but not its end. */
async function inData(account: SubmittingAccount, message: string): Promise<RawSession> {
  const session = await h.loggedIn(account.sendingKey);
  await session.command('MAIL FROM:<app@client.test>');
  await session.command('RCPT TO:<ann@example.test>');
  expect(await session.command('DATA')).toMatch(/^354 /);
  session.write(message);
  return session;
}

/** Waits until the listener holds `count` messages of `size`, but for the few bytes of each it keeps back until it sees whether they end the data. */
async function holding(count: number, size: number) {
  while (h.deps.bodyBudget.held < count * (size - 8)) await sleep(20);
}

it("refuses with 451 4.3.0 the data that does not fit beside an account's or every account's, takes the rest, and gives the budget back", async () => {
  const [a, b, c, d] = accounts as [SubmittingAccount, SubmittingAccount, SubmittingAccount, SubmittingAccount];
  const messages = new Map(accounts.map((account) => [account, bigMessage(account, 'Big')]));
  const size = messages.get(a)!.length;

  const first = await inData(a, messages.get(a)!);
  await holding(1, size);
  // A second 9.7 MB of the same account does not fit its 16 MiB share: refused, the rest discarded.
  const second = await inData(a, messages.get(a)!);
  second.write('\r\n.\r\n');
  expect(await second.reply()).toMatch(/^451 4\.3\.0 service_unavailable: This account's .*try again in 1 seconds$/);
  expect(h.deps.bodyBudget.held).toBeLessThanOrEqual(size);

  // Other accounts fit beside it until the process's 32 MiB are held.
  const others = [await inData(b, messages.get(b)!)];
  await holding(2, size);
  others.push(await inData(c, messages.get(c)!));
  await holding(3, size);
  const past = await inData(d, messages.get(d)!);
  past.write('\r\n.\r\n');
  expect(await past.reply()).toMatch(/^451 4\.3\.0 service_unavailable: Too many bodies .*try again in 1 seconds$/);

  for (const session of [first, ...others]) session.write('\r\n.\r\n');
  for (const session of [first, ...others]) expect(await session.reply()).toMatch(/^250 2\.0\.0 queued as em_/);
  expect(h.deps.bodyBudget.held).toBe(0);

  // The budget is back: the refused ones' next attempt is taken.
  for (const session of [second, past]) {
    await session.command('MAIL FROM:<app@client.test>');
    await session.command('RCPT TO:<ann@example.test>');
    await session.command('DATA');
  }
  second.write(`${messages.get(a)!}\r\n.\r\n`);
  expect(await second.reply()).toMatch(/^250 2\.0\.0 queued as em_/);
  past.write(`${messages.get(d)!}\r\n.\r\n`);
  expect(await past.reply()).toMatch(/^250 2\.0\.0 queued as em_/);
  [first, second, past, ...others].forEach((session) => session.close());
});
