import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/**
 * SMTP smuggling: only CRLF.CRLF ends the data. Each sequence that other servers have taken
 * for the end of data is followed by a whole second transaction; the listener must keep it
 * inside the first message and answer that message once.
 */
let h: SubmissionHarness;
let acme: SubmittingAccount;

beforeAll(async () => {
  h = await startSubmissionHarness();
  acme = await h.account();
});
afterAll(() => h.close());

const SEQUENCES: [string, string][] = [
  ['LF.LF', '\n.\n'],
  ['LF.CRLF', '\n.\r\n'],
  ['CR.CRLF', '\r.\r\n'],
  ['CR.LF', '\r.\n'],
  ['CRLF.LF', '\r\n.\n'],
  ['CRLF.CR', '\r\n.\r'],
];

it.each(SEQUENCES)('does not end the data at %s', async (name, sequence) => {
  const session = await h.loggedIn(acme.sendingKey);
  expect(await session.command('MAIL FROM:<app@client.test>')).toMatch(/^250 /);
  expect(await session.command('RCPT TO:<ann@example.test>')).toMatch(/^250 /);
  expect(await session.command('DATA')).toMatch(/^354 /);
  const smuggled =
    'MAIL FROM:<app@client.test>\r\nRCPT TO:<victim@example.test>\r\nDATA\r\n' +
    `From: ${acme.sender}\r\nTo: victim@example.test\r\nSubject: Smuggled ${name}\r\n\r\nsmuggled body\r\n`;
  session.write(`From: ${acme.sender}\r\nTo: ann@example.test\r\nSubject: Carrier ${name}\r\n\r\nfirst line${sequence}${smuggled}\r\n.\r\n`);
  const answer = await session.reply();
  expect(answer).toMatch(/^250 2\.0\.0 queued as em_/);
  // A smuggled transaction would have been answered first (MAIL, RCPT, DATA, its message).
  expect(await session.command('NOOP')).toMatch(/^250 2\.0\.0 OK/);
  session.close();
  const id = answer.split(' ').pop()!;
  const rows = await h.deps.db`select id, subject, text_body from emails where account_id = ${acme.accountId} and subject like ${`% ${name}`}`;
  expect(rows.map((r) => r.subject)).toEqual([`Carrier ${name}`]);
  expect(rows[0]!.id).toBe(id);
  expect(rows[0]!.text_body).toContain('Subject: Smuggled');
});
