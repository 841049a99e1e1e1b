import { loadConfig } from '@mailer/config';
import { claimMessages, createAccount, openDatabase, writeAttempts, type DatabaseHandle } from '@mailer/db';
import { requiredDnsRecords, type DomainDnsIdentity } from '@mailer/domain';
import { deliverMessageJobId } from '@mailer/queue';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

let database: DatabaseHandle;
let dns: TestDnsServer;
let cli: TestCli;
let accountId: string;
let domain: { id: string; name: string };
let sender: { id: string; email: string };

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  dns = await startTestDnsServer();
  cli = startTestCli(database.db, { dnsServers: [dns.address] });
  accountId = (await createAccount(database.db, 'Operators')).account.id;
  domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, 'ops.test');
  sender = await insertSender(database.db, accountId, domain.id, 'hello@ops.test');
});
afterAll(async () => {
  await cli.close();
  await dns.close();
  await database.close();
});

const queued = (to: string[]) =>
  insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to });

async function json(...argv: string[]) {
  const result = await cli.run(...argv, '--json');
  return { status: result.status, body: JSON.parse(result.status === 0 ? result.stdout : result.stderr) };
}

describe('queue stats', () => {
  it('counts recipient deliveries by status in PostgreSQL and jobs by state in Redis', async () => {
    const a = await queued(['a@example.test', 'b@example.test']);
    await database.db`update deliveries set status = 'deferred' where id = ${a.deliveries[1]!.id}`;
    await (await cli.deliveryQueue()).enqueue({ emailId: a.id, dueAt: a.createdAt });
    const { status, body } = await json('queue', 'stats');
    expect(status).toBe(0);
    expect(body.deliveries).toMatchObject({ queued: 1, deferred: 1, sending: 0, accepted: 0, bounced: 0, failed: 0 });
    expect(body.jobs).toEqual({ waiting: 1, delayed: 0, active: 0, failed: 0 });
  });
});

describe('email show', () => {
  it('prints any account\'s message with what the transport saw of each attempt, BCC deliveries included', async () => {
    const email = await insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to: ['ann@example.test'], bcc: ['hidden@example.test'] });
    const now = new Date();
    const { lease } = (await claimMessages(database.db, [email.id], now, 60_000)).get(email.id)!;
    const transport = {
      mxHost: 'mx.example.test',
      mxAddress: '192.0.2.7',
      reply: { code: 250, enhancedStatus: '2.0.0', text: 'Ok: queued as 4Fz9' },
      tls: { version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', verified: true },
      policy: 'require_tls' as const,
      tlsResult: 'success' as const,
    };
    await writeAttempts(database.db, [
      {
        lease,
        attempt: { startedAt: now, endedAt: now, outcome: 'accepted', cause: null, transport },
        decisions: lease.deliveries.map((d) => ({ deliveryId: d.id, status: 'accepted' as const, cause: null })),
      },
    ]);

    const { status, body } = await json('email', 'show', email.id);

    expect(status).toBe(0);
    expect(body).toMatchObject({ id: email.id, account_id: accountId, status: 'accepted' });
    expect(body.deliveries.map((d: { recipient: string; kind: string }) => [d.recipient, d.kind])).toEqual([
      ['ann@example.test', 'to'],
      ['hidden@example.test', 'bcc'],
    ]);
    expect(body.attempts).toEqual([
      expect.objectContaining({
        outcome: 'accepted',
        recipients: ['ann@example.test'],
        bcc_recipients: 1,
        mx_host: 'mx.example.test',
        mx_address: '192.0.2.7',
        reply: { code: 250, enhanced_status: '2.0.0', text: 'Ok: queued as 4Fz9' },
        tls: { version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', certificate_verified: true },
        tls_policy: 'require_tls',
        tls_result: 'success',
      }),
    ]);
    expect(await json('email', 'show', 'em_nonexistent')).toEqual({ status: 1, body: { error: { code: 'email_not_found', message: expect.any(String) } } });
  });
});

describe('email retry', () => {
  it('makes the deferred deliveries due now and enqueues the message', async () => {
    const email = await queued(['later@example.test']);
    const inAnHour = new Date(Date.now() + 3_600_000);
    await database.db`update deliveries set status = 'deferred', next_attempt_at = ${inAnHour} where email_id = ${email.id}`;

    const { status, body } = await json('email', 'retry', email.id);

    expect(status).toBe(0);
    expect(body).toEqual({ id: email.id, retried: 1 });
    const [row] = await database.db`select next_attempt_at as "nextAttemptAt" from deliveries where email_id = ${email.id}`;
    expect(row!.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    const job = await (await cli.deliveryQueue()).queue.getJob(deliverMessageJobId(email.id, row!.nextAttemptAt));
    expect(job?.data).toEqual({ emailIds: [email.id], accountId });
  });

  it('refuses an unknown message and one with nothing deferred', async () => {
    expect(await json('email', 'retry', 'em_nonexistent')).toEqual({ status: 1, body: { error: { code: 'email_not_found', message: expect.any(String) } } });
    const email = await queued(['now@example.test']);
    expect((await json('email', 'retry', email.id)).body.error.code).toBe('nothing_deferred');
  });
});

describe('domain check', () => {
  it('runs the DNS check against the configured resolver and records it', async () => {
    await database.db`
      update domains set ownership_status = 'not_checked', dkim_status = 'not_checked', dmarc_status = 'not_checked' where id = ${domain.id}`;
    const [row] = await database.db<DomainDnsIdentity[]>`
      select name, ownership_token as "ownershipToken", dkim_selector as "dkimSelector", dkim_public_key as "dkimPublicKey"
      from domains where id = ${domain.id}`;
    for (const record of requiredDnsRecords(row!, loadConfig({}).returnPath).filter((r) => r.type === 'TXT')) dns.set(record.name, [{ type: 'TXT', data: record.value }]);

    const { status, body } = await json('domain', 'check', domain.id);

    expect(status).toBe(0);
    expect(body).toMatchObject({ id: domain.id, name: 'ops.test', status: 'ready', ownership: { status: 'verified' }, dkim: { status: 'verified' }, dmarc: { status: 'verified' } });
    expect(body.last_check.status).toBe('completed');
    const [after] = await database.db`select last_check_status as "lastCheckStatus" from domains where id = ${domain.id}`;
    expect(after!.lastCheckStatus).toBe('completed');
  });

  it('refuses an unknown domain', async () => {
    expect((await json('domain', 'check', 'dom_unknown')).body.error.code).toBe('domain_not_found');
  });
});
