import { openDatabase, type DatabaseHandle } from '@mailer/db';
import { hashApiKey, SCOPES } from '@mailer/domain';
import { createTestDatabase, databaseUrl } from '@mailer/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

let database: DatabaseHandle;
let cli: TestCli;
beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  cli = startTestCli(database.db);
});
afterAll(async () => {
  await cli.close();
  await database.close();
});

const run = (...argv: string[]) => cli.run(...argv);

/** A failing command: non-zero status, nothing on stdout, `{"error":{code,message}}` on stderr. */
async function failsWith(code: string, ...argv: string[]) {
  const result = await run(...argv, '--json');
  expect(result).toEqual({ status: 1, stdout: '', stderr: expect.stringMatching(/\n$/) });
  expect(JSON.parse(result.stderr)).toEqual({ error: { code, message: expect.any(String) } });
  return JSON.parse(result.stderr).error.message as string;
}

async function newAccount() {
  const result = await run('account', 'create', '--name', 'Fixture', '--json');
  return JSON.parse(result.stdout) as { account: { id: string }; sending_key: string; test_sending_key: string; management_key: string };
}

const keyRow = async (key: string) =>
  (
    await database.db`
      select id, account_id as "accountId", kind, test, scopes, revoked_at as "revokedAt" from api_keys where key_hash = ${hashApiKey(key)}`
  )[0];
const accountRow = async (id: string) => (await database.db`select name, plan_id as "planId" from accounts where id = ${id}`)[0];

describe('account create', () => {
  it('prints the account and its three keys as one JSON line, and stores them', async () => {
    const result = await run('account', 'create', '--name', '  Acme Corp ', '--json');
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({
      account: { id: expect.stringMatching(/^acc_[0-9A-Za-z]{22}$/), name: 'Acme Corp', plan: 'free' },
      sending_key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{32,}$/),
      test_sending_key: expect.stringMatching(/^svc_test_[0-9A-Za-z]{32,}$/),
      management_key: expect.stringMatching(/^mgmt_live_[0-9A-Za-z]{32,}$/),
    });
    const account = await accountRow(out.account.id);
    expect(await keyRow(out.test_sending_key)).toMatchObject({ accountId: out.account.id, kind: 'sending', test: true, revokedAt: null });
    expect(account).toMatchObject({ name: 'Acme Corp', planId: 'plan_free' });
    expect(await keyRow(out.sending_key)).toMatchObject({ accountId: out.account.id, kind: 'sending', revokedAt: null });
    expect(await keyRow(out.management_key)).toMatchObject({
      accountId: out.account.id,
      kind: 'management',
      scopes: [...SCOPES],
    });
  });

  it('prints a readable form without --json', async () => {
    const result = await run('account', 'create', '--name', 'Readable');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Created account acc_\w+ \(Readable\) on the free plan\.\n/);
    expect(result.stdout).toMatch(/Sending key: +svc_live_\w+/);
    expect(result.stdout).toMatch(/Management key: mgmt_live_\w+/);
    expect(() => JSON.parse(result.stdout)).toThrow();
  });

  it('refuses a missing or empty name', async () => {
    expect(await failsWith('usage_error', 'account', 'create')).toContain('--name');
    await failsWith('invalid_name', 'account', 'create', '--name', '   ');
    await failsWith('invalid_name', 'account', 'create', '--name', 'a\u0007b');
  });
});

describe('key create', () => {
  it('creates a management key with the scopes asked for', async () => {
    const { account } = await newAccount();
    const result = await run('key', 'create', '--account', account.id, '--scopes', 'senders:read, domains:write', '--json');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Za-z]{22}$/),
      key: expect.stringMatching(/^mgmt_live_[0-9A-Za-z]{32,}$/),
      scopes: ['senders:read', 'domains:write'],
    });
    expect(await keyRow(out.key)).toMatchObject({ id: out.id, accountId: account.id, kind: 'management', scopes: ['senders:read', 'domains:write'] });
  });

  it('refuses unknown scopes, an empty list and an unknown account', async () => {
    const { account } = await newAccount();
    for (const scopes of ['admin', 'senders:read,bogus', ',', 'senders:*']) {
      expect(await failsWith('invalid_scopes', 'key', 'create', '--account', account.id, '--scopes', scopes)).toContain('senders:write');
    }
    await failsWith('account_not_found', 'key', 'create', '--account', 'acc_AAAAAAAAAAAAAAAAAAAAAA', '--scopes', 'senders:read');
    await failsWith('usage_error', 'key', 'create', '--account', account.id);
    await failsWith('usage_error', 'key', 'create', '--scopes', 'senders:read');
  });
});

describe('key revoke', () => {
  it('revokes an active key once; then it is unknown', async () => {
    const { account } = await newAccount();
    const created = JSON.parse((await run('key', 'create', '--account', account.id, '--scopes', 'senders:read', '--json')).stdout);
    const result = await run('key', 'revoke', '--id', created.id, '--json');
    expect(result).toEqual({ status: 0, stdout: `${JSON.stringify({ id: created.id, revoked: true })}\n`, stderr: '' });
    expect((await keyRow(created.key))!.revokedAt).toBeInstanceOf(Date);
    await failsWith('key_not_found', 'key', 'revoke', '--id', created.id);
    await failsWith('key_not_found', 'key', 'revoke', '--id', 'key_AAAAAAAAAAAAAAAAAAAAAA');
    await failsWith('usage_error', 'key', 'revoke');
  });

  it('says so in text without --json, and errors go to stderr', async () => {
    const { account } = await newAccount();
    const created = JSON.parse((await run('key', 'create', '--account', account.id, '--scopes', 'domains:read', '--json')).stdout);
    expect(await run('key', 'revoke', '--id', created.id)).toEqual({ status: 0, stdout: `Revoked key ${created.id}.\n`, stderr: '' });
    expect(await run('key', 'revoke', '--id', created.id)).toEqual({ status: 1, stdout: '', stderr: `error: No active key with id ${created.id}.\n` });
  });
});

describe('key rotate-sending', () => {
  it('issues a new sending key and revokes the old one in the same step', async () => {
    const { account, sending_key: old } = await newAccount();
    const result = await run('key', 'rotate-sending', '--account', account.id, '--json');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({ sending_key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{32,}$/) });
    expect(out.sending_key).not.toBe(old);
    expect((await keyRow(old))!.revokedAt).toBeInstanceOf(Date);
    const active = await database.db`
      select key_hash as "keyHash" from api_keys where account_id = ${account.id} and kind = 'sending' and not test and revoked_at is null`;
    expect(active.map((row) => row.keyHash)).toEqual([hashApiKey(out.sending_key)]);
  });

  it('with --test replaces the test key only', async () => {
    const { account, sending_key: live, test_sending_key: old } = await newAccount();
    const result = await run('key', 'rotate-sending', '--account', account.id, '--test', '--json');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({ test_sending_key: expect.stringMatching(/^svc_test_[0-9A-Za-z]{32,}$/) });
    expect((await keyRow(old))!.revokedAt).toBeInstanceOf(Date);
    expect((await keyRow(live))!.revokedAt).toBeNull();
    expect(await keyRow(out.test_sending_key)).toMatchObject({ accountId: account.id, kind: 'sending', test: true, revokedAt: null });
    expect((await run('key', 'rotate-sending', '--account', account.id, '--test')).stdout).toMatch(/^New test sending key for acc_\w+: svc_test_/);
  });

  it('refuses an unknown account', async () => {
    await failsWith('account_not_found', 'key', 'rotate-sending', '--account', 'acc_AAAAAAAAAAAAAAAAAAAAAA');
  });
});

describe('account pause, resume and show', () => {
  it("pauses and resumes an account's sending with a reason, each change once, and shows its status and rates", async () => {
    const { account } = await newAccount();
    const shown = JSON.parse((await run('account', 'show', account.id, '--json')).stdout);
    const enabled = { status: 'enabled', reason: null, since: expect.any(String), bounce_rate: 0, complaint_rate: 0 };
    expect(shown).toEqual({ id: account.id, sending: enabled, streams: { transactional: { sending: enabled }, broadcast: { sending: enabled } } });

    const paused = JSON.parse((await run('account', 'pause', account.id, '--reason', 'Spam trap hits reported by Spamhaus', '--json')).stdout);
    expect(paused).toMatchObject({ id: account.id, changed: true, sending: { status: 'paused', reason: 'Spam trap hits reported by Spamhaus' } });
    expect(JSON.parse((await run('account', 'pause', account.id, '--reason', 'again', '--json')).stdout)).toMatchObject({
      changed: false,
      sending: { status: 'paused', reason: 'Spam trap hits reported by Spamhaus', since: paused.sending.since },
    });
    expect((await run('account', 'show', account.id)).stdout).toContain('sending paused since');

    const resumed = await run('account', 'resume', account.id, '--reason', 'Customer removed the list');
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toContain('sending enabled since');
    expect(JSON.parse((await run('account', 'show', account.id, '--json')).stdout).sending).toMatchObject({ status: 'enabled', reason: 'Customer removed the list' });

    // One stream alone: the other keeps its status.
    const broadcast = JSON.parse((await run('account', 'pause', account.id, '--stream', 'broadcast', '--reason', 'Digest complaints', '--json')).stdout);
    expect(broadcast).toMatchObject({ changed: true, sending: { status: 'paused' }, streams: { broadcast: { sending: { status: 'paused' } } } });
    const both = JSON.parse((await run('account', 'show', account.id, '--json')).stdout).streams;
    expect([both.transactional.sending.status, both.broadcast.sending.status]).toEqual(['enabled', 'paused']);
    expect((await run('account', 'show', account.id)).stdout).toContain(`${account.id} broadcast: sending paused since`);
    await failsWith('invalid_stream', 'account', 'resume', account.id, '--stream', 'marketing', '--reason', 'x');
  });

  it('refuses an unknown account, a missing reason and one with control characters', async () => {
    const { account } = await newAccount();
    await failsWith('account_not_found', 'account', 'show', 'acc_AAAAAAAAAAAAAAAAAAAAAA');
    await failsWith('account_not_found', 'account', 'pause', 'acc_AAAAAAAAAAAAAAAAAAAAAA', '--reason', 'x');
    await failsWith('usage_error', 'account', 'pause', account.id);
    await failsWith('invalid_reason', 'account', 'pause', account.id, '--reason', 'line\nbreak');
    await failsWith('invalid_reason', 'account', 'resume', account.id, '--reason', '  ');
    expect(JSON.parse((await run('account', 'show', account.id, '--json')).stdout).sending.status).toBe('enabled');
  });
});

describe('account list', () => {
  it('lists every account with its plan, oldest first', async () => {
    const first = await newAccount();
    const second = await newAccount();
    await run('plan', 'set', '--account', second.account.id, '--max-domains', '5');
    const result = await run('account', 'list', '--json');
    expect(result.status).toBe(0);
    const { accounts } = JSON.parse(result.stdout) as { accounts: Record<string, unknown>[] };
    const ids = accounts.map((a) => a.id);
    expect(ids.indexOf(first.account.id)).toBeLessThan(ids.indexOf(second.account.id));
    expect(accounts.find((a) => a.id === first.account.id)).toEqual({
      id: first.account.id,
      name: 'Fixture',
      plan: 'free',
      plan_id: 'plan_free',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(accounts.find((a) => a.id === second.account.id)).toMatchObject({ plan: 'custom', plan_id: expect.stringMatching(/^plan_/) });
    expect((await run('account', 'list')).stdout).toContain(first.account.id);
  });
});

describe('key list', () => {
  it("lists the account's keys with kinds, scopes, creation and revocation, never a key or its hash", async () => {
    const account = await newAccount();
    const created = JSON.parse((await run('key', 'create', '--account', account.account.id, '--scopes', 'domains:read', '--json')).stdout);
    await run('key', 'rotate-sending', '--account', account.account.id);
    const result = await run('key', 'list', '--account', account.account.id, '--json');
    expect(result.status).toBe(0);
    const { keys } = JSON.parse(result.stdout) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(5);
    const sending = keys.filter((k) => k.kind === 'sending' && k.test === false);
    expect(sending.map((k) => k.revoked_at === null)).toEqual([false, true]);
    expect(keys.filter((k) => k.test === true).map((k) => k.revoked_at)).toEqual([null]);
    expect(keys.find((k) => k.id === created.id)).toEqual({
      id: created.id,
      kind: 'management',
      test: false,
      scopes: ['domains:read'],
      created_at: expect.any(String),
      revoked_at: null,
    });
    const printed = result.stdout + (await run('key', 'list', '--account', account.account.id)).stdout;
    for (const secret of [account.sending_key, account.test_sending_key, account.management_key, created.key]) {
      expect(printed).not.toContain(secret);
      expect(printed).not.toContain(hashApiKey(secret));
    }
    await failsWith('account_not_found', 'key', 'list', '--account', 'acc_doesnotexist');
  });
});

describe('plan set', () => {
  it('puts the account on a custom plan: given limits set, the rest carried over', async () => {
    const { account } = await newAccount();
    const first = await run('plan', 'set', '--account', account.id, '--per-minute', '600', '--max-active', '0', '--json');
    expect(first.status).toBe(0);
    const plan = JSON.parse(first.stdout);
    expect(plan).toEqual({
      id: expect.stringMatching(/^plan_/),
      name: 'custom',
      per_minute: 600,
      per_hour: 300,
      per_day: 300,
      per_30_days: 3000,
      max_active: 0,
      max_domains: 100,
      max_webhook_endpoints: 10,
      max_templates: 100,
      reputation: { min_volume: 200, review_bounce_rate: 0.05, review_complaint_rate: 0.001, pause_bounce_rate: 0.1, pause_complaint_rate: 0.005 },
    });
    const row = await accountRow(account.id);
    expect(row!.planId).toBe(plan.id);

    const second = JSON.parse(
      (await run('plan', 'set', '--account', account.id, '--per-hour', '20000', '--per-day', '100000', '--per-30-days', '2147483647', '--json')).stdout,
    );
    expect(second).toMatchObject({ per_minute: 600, per_hour: 20000, per_day: 100000, per_30_days: 2147483647, max_active: 0 });
    const third = JSON.parse((await run('plan', 'set', '--account', account.id, '--max-domains', '3', '--json')).stdout);
    expect(third).toMatchObject({ per_minute: 600, per_hour: 20000, max_active: 0, max_domains: 3 });
    const fourth = JSON.parse((await run('plan', 'set', '--account', account.id, '--max-webhook-endpoints', '25', '--max-templates', '7', '--json')).stdout);
    expect(fourth).toMatchObject({ max_domains: 3, max_webhook_endpoints: 25, max_templates: 7 });
    const fifth = JSON.parse(
      (await run('plan', 'set', '--account', account.id, '--min-volume', '50', '--review-bounce-rate', '0.02', '--pause-complaint-rate', '0.01', '--json')).stdout,
    );
    expect(fifth).toMatchObject({
      max_webhook_endpoints: 25,
      reputation: { min_volume: 50, review_bounce_rate: 0.02, review_complaint_rate: 0.001, pause_bounce_rate: 0.1, pause_complaint_rate: 0.01 },
    });
    expect(JSON.parse((await run('plan', 'set', '--account', account.id, '--per-minute', '60', '--json')).stdout).reputation).toEqual(fifth.reputation);
    const [free] = await database.db`
      select per_minute as "perMinute", per_hour as "perHour", per_day as "perDay", per_30_days as "per30Days", max_active as "maxActive"
      from plans where id = 'plan_free'`;
    expect(free).toMatchObject({ perMinute: 30, perHour: 300, perDay: 300, per30Days: 3000, maxActive: 250 });
  });

  it('prints the limits in text without --json', async () => {
    const { account } = await newAccount();
    const result = await run('plan', 'set', '--account', account.id, '--per-day', '1000');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('per day 1000');
  });

  it('refuses limits that are not whole numbers, no limit at all and an unknown account', async () => {
    const { account } = await newAccount();
    for (const value of ['1.5', 'abc', '-1', '1e3', '', '2147483648', '99999999999']) {
      expect(await failsWith('invalid_limit', 'plan', 'set', '--account', account.id, '--per-hour', value)).toContain('--per-hour');
    }
    for (const value of ['0', '1.5', '0.1234567', 'abc', '-0.1']) {
      expect(await failsWith('invalid_limit', 'plan', 'set', '--account', account.id, '--pause-bounce-rate', value)).toContain('--pause-bounce-rate');
    }
    // A review threshold above its pause threshold.
    expect(await failsWith('invalid_limit', 'plan', 'set', '--account', account.id, '--review-complaint-rate', '0.2')).toContain('review complaint rate');
    await failsWith('no_limits', 'plan', 'set', '--account', account.id);
    await failsWith('account_not_found', 'plan', 'set', '--account', 'acc_AAAAAAAAAAAAAAAAAAAAAA', '--per-minute', '5');
    await failsWith('usage_error', 'plan', 'set', '--per-minute', '5');
    const row = await accountRow(account.id);
    expect(row!.planId).toBe('plan_free');
  });
});

describe('the program', () => {
  it('answers an unknown command with a usage error and --help with status 0', async () => {
    expect(await failsWith('usage_error', 'account', 'delete')).toContain('delete');
    const help = await run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('account');
    expect(help.stdout).toContain('migrate');
  });

  it('says the database is not migrated when it is not', async () => {
    const name = `${database.db.options.database}_blank`;
    await database.db`create database ${database.db(name)}`;
    const blank = openDatabase(databaseUrl(name), 1);
    try {
      const { status, stderr } = await startTestCli(blank.db).run('account', 'create', '--name', 'x', '--json');
      expect(status).toBe(1);
      expect(JSON.parse(stderr)).toEqual({ error: { code: 'database_not_migrated', message: expect.stringContaining('npm run migrate') } });
    } finally {
      await blank.close();
      await database.db`drop database ${database.db(name)}`;
    }
  });
});
