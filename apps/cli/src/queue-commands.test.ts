import { claimMessages, createAccount, openDatabase, writeAttempts, type DatabaseHandle } from '@mailer/db';
import { deliverMessageJobId } from '@mailer/queue';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

/** `queue list|hold|release|delete|flush` against a real database and Redis (docs/api-decisions.md, "Queue operations"). */
let database: DatabaseHandle;
let cli: TestCli;
let accountId: string;
let otherAccountId: string;
let sender: { id: string; email: string; domainId: string };
let otherSender: { id: string; email: string; domainId: string };

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  cli = startTestCli(database.db);
  for (const [name, domainName] of [
    ['Queue', 'queue.test'],
    ['Other', 'other.test'],
  ] as const) {
    const id = (await createAccount(database.db, name)).account.id;
    const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), id, domainName);
    const made = { ...(await insertSender(database.db, id, domain.id, `hello@${domainName}`)), domainId: domain.id };
    if (name === 'Queue') [accountId, sender] = [id, made];
    else [otherAccountId, otherSender] = [id, made];
  }
});
afterAll(async () => {
  await cli.close();
  await database.close();
});

const queued = (to: string[], options: { other?: boolean; bcc?: string[] } = {}) => {
  const [account, s] = options.other ? [otherAccountId, otherSender] : [accountId, sender];
  return insertQueuedEmail(database.db, { accountId: account, senderId: s.id, domainId: s.domainId, from: s.email, to, ...(options.bcc ? { bcc: options.bcc } : {}) });
};

/** One attempt that defers every delivery of the message, with the remote reply an operator should see. */
async function deferWithReply(emailId: string, text: string) {
  const now = new Date();
  const { lease } = (await claimMessages(database.db, [emailId], now, 60_000)).get(emailId)!;
  const cause = { code: 'greylisted' as const, permanent: false, smtp_code: 451, enhanced_status: '4.7.1' };
  await writeAttempts(database.db, [
    {
      lease,
      attempt: {
        startedAt: now,
        endedAt: now,
        outcome: 'deferred',
        cause,
        transport: { mxHost: 'mx.greylist.test', mxAddress: '192.0.2.9', reply: { code: 451, enhancedStatus: '4.7.1', text }, tls: null, policy: 'opportunistic', tlsResult: null },
      },
      decisions: lease.deliveries.map((d) => ({ deliveryId: d.id, status: 'deferred' as const, cause, nextAttemptAt: new Date(now.getTime() + 3600_000) })),
    },
  ]);
}

async function json(...argv: string[]) {
  const result = await cli.run(...argv, '--json');
  return { status: result.status, body: JSON.parse(result.status === 0 ? result.stdout : result.stderr) };
}

describe('queue list', () => {
  it('lists deferred deliveries with their last reply, and held ones, paged by keyset', async () => {
    const grey = await queued(['ann@greylist.test'], { bcc: ['secret@greylist.test'] });
    await deferWithReply(grey.id, 'Greylisted, try again in 5 minutes');
    const held = await queued(['bob@held.test']);
    expect((await json('queue', 'hold', held.id)).body).toEqual({ action: 'hold', changed: 1, enqueued: false });
    await queued(['carol@fresh.test']);

    const all = await json('queue', 'list', '--account', accountId);
    expect(all.status).toBe(0);
    const byRecipient = Object.fromEntries(all.body.deliveries.map((d: { recipient: string }) => [d.recipient, d]));
    expect(Object.keys(byRecipient).sort()).toEqual(['ann@greylist.test', 'bob@held.test', 'secret@greylist.test']);
    expect(byRecipient['ann@greylist.test']).toMatchObject({
      email_id: grey.id,
      account_id: accountId,
      status: 'deferred',
      held: false,
      attempt_count: 1,
      recipient_domain: 'greylist.test',
      cause: 'greylisted',
      next_attempt_at: expect.any(String),
      last_attempt: { mx_host: 'mx.greylist.test', reply: { code: 451, enhanced_status: '4.7.1', text: 'Greylisted, try again in 5 minutes' } },
    });
    // Operators see a BCC delivery's reply too (contract section 16): the latest attempt that carried BCC recipients.
    expect(byRecipient['secret@greylist.test']).toMatchObject({ kind: 'bcc', last_attempt: { reply: { text: 'Greylisted, try again in 5 minutes' } } });
    expect(byRecipient['bob@held.test']).toMatchObject({ status: 'queued', held: true, held_at: expect.any(String), next_attempt_at: null, last_attempt: null });

    expect((await json('queue', 'list', '--account', accountId, '--status', 'held')).body.deliveries.map((d: { recipient: string }) => d.recipient)).toEqual([
      'bob@held.test',
    ]);
    expect((await json('queue', 'list', '--domain', 'greylist.test', '--status', 'deferred')).body.deliveries).toHaveLength(2);

    const first = await json('queue', 'list', '--account', accountId, '--limit', '2');
    expect(first.body.deliveries).toHaveLength(2);
    const second = await json('queue', 'list', '--account', accountId, '--limit', '2', '--cursor', first.body.next_cursor);
    expect(second.body).toMatchObject({ next_cursor: null });
    expect([...first.body.deliveries, ...second.body.deliveries].map((d: { id: string }) => d.id)).toEqual(all.body.deliveries.map((d: { id: string }) => d.id));
  });

  it('refuses a bad limit, status or cursor', async () => {
    expect((await json('queue', 'list', '--limit', '0')).body.error.code).toBe('validation_error');
    expect((await json('queue', 'list', '--status', 'sending')).body.error.code).toBe('validation_error');
    expect((await json('queue', 'list', '--cursor', 'garbage')).body.error.code).toBe('invalid_cursor');
  });
});

describe('queue hold, release, delete and flush', () => {
  it('acts on one account only when told, and releases into Redis at once', async () => {
    const mine = await queued(['dora@batch.test']);
    const theirs = await queued(['erin@batch.test'], { other: true });
    expect((await json('queue', 'hold', '--domain', 'batch.test', '--account', accountId)).body).toMatchObject({ changed: 1 });
    const held = await database.db`select email_id from deliveries where held_at is not null and recipient_domain = 'batch.test'`;
    expect(held.map((r) => r.email_id)).toEqual([mine.id]);

    const released = await json('queue', 'release', '--domain', 'batch.test');
    expect(released.body).toEqual({ action: 'release', changed: 1, enqueued: true });
    const jobs = await (await cli.deliveryQueue()).queue.getJobs(['waiting', 'delayed']);
    expect(jobs.map((j) => j.data.emailIds)).toContainEqual([mine.id]);
    expect(jobs.some((j) => j.id === deliverMessageJobId(theirs.id, theirs.createdAt))).toBe(false);
  });

  it('deletes by delivery id, ending it failed with canceled_by_operator', async () => {
    const email = await queued(['fred@delete.test', 'gina@delete.test']);
    const [first] = email.deliveries;
    expect((await json('queue', 'delete', first!.id)).body).toMatchObject({ action: 'delete', changed: 1 });
    const rows = await database.db`select recipient, status, cause from deliveries where email_id = ${email.id} order by position`;
    expect(rows.map((r) => [r.recipient, r.status, r.cause?.code ?? null])).toEqual([
      ['fred@delete.test', 'failed', 'canceled_by_operator'],
      ['gina@delete.test', 'queued', null],
    ]);
    // Nothing left to delete: a second run changes nothing.
    expect((await json('queue', 'delete', first!.id)).body).toMatchObject({ changed: 0 });
  });

  it('flushes deferred deliveries only', async () => {
    const grey = await queued(['hank@flush.test']);
    await deferWithReply(grey.id, 'try later');
    expect((await json('queue', 'flush', '--domain', 'flush.test')).body).toMatchObject({ changed: 1, enqueued: true });
    const [row] = await database.db`select next_attempt_at <= now() as due from deliveries where email_id = ${grey.id}`;
    expect(row!.due).toBe(true);
  });

  it('refuses to act without a selection, or on a malformed id', async () => {
    expect((await json('queue', 'delete')).body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('Name the deliveries') });
    expect((await json('queue', 'hold', 'acc_x')).body.error.code).toBe('validation_error');
    expect((await json('queue', 'hold', '--account', 'nope')).body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('account') });
  });
});

describe('webhook redeliver and test', () => {
  it('answers unknown ids with the contract codes', async () => {
    expect((await json('webhook', 'redeliver', 'whd_unknown')).body.error.code).toBe('webhook_delivery_not_found');
    expect((await json('webhook', 'test', 'wh_unknown')).body.error.code).toBe('webhook_not_found');
  });
});
