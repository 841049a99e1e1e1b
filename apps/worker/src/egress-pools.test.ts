import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addEgressAddress, createEgressPool, setAccountEgressPool } from '@mailer/db';
import { nextUtcDay, utcDay } from '@mailer/domain';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { closeContainer, createContainer } from './container';
import { deliverMessage, startWorkerHarness, type WorkerHarness } from './testing/worker-harness';

describe('egress pools', () => {
  let h: WorkerHarness;
  let peer: TestSmtpServer;
  beforeAll(async () => {
    h = await startWorkerHarness({ SMTP_POOL_IDLE: '10s' });
    peer = await startTestSmtpServer({ host: '127.0.0.5', port: h.smtpPort, tls: 'none' });
    h.dns.set('pools.test', [{ type: 'MX', exchange: 'mx.pools.test', priority: 10 }]);
    h.dns.set('mx.pools.test', [{ type: 'A', address: '127.0.0.5' }]);
    for (const [pool, address] of [['pool-a', '127.0.0.2'], ['pool-b', '127.0.0.3']] as const) {
      await createEgressPool(h.deps.db, pool);
      await addEgressAddress(h.deps.db, { pool, address, heloName: `${pool}.mailer.test`, warmUpStartedOn: null });
    }
  });
  afterAll(async () => {
    await peer.close();
    await h.close();
  });

  it("sends each account's mail from an address of its own pool, with that address's HELO name", async () => {
    const a = await h.createSendingSetup({ domain: 'account-a.test' });
    const b = await h.createSendingSetup({ domain: 'account-b.test' });
    const machine = await h.createSendingSetup({ domain: 'account-c.test' });
    expect(await setAccountEgressPool(h.deps.db, a.accountId, 'pool-a')).toBe('ok');
    expect(await setAccountEgressPool(h.deps.db, b.accountId, 'pool-b')).toBe('ok');
    // Interleaved, on pooled connections kept open between messages.
    for (const setup of [a, b, a, b, machine]) await h.runJob(await h.queueEmail(setup, { to: [`to-${setup.accountId}@pools.test`] }));
    const seen = peer.messages.map((m) => ({ from: m.from.split('@')[1], remoteAddress: m.remoteAddress.replace(/^::ffff:/, ''), helo: m.helo }));
    expect(seen).toEqual([
      { from: 'account-a.test', remoteAddress: '127.0.0.2', helo: 'pool-a.mailer.test' },
      { from: 'account-b.test', remoteAddress: '127.0.0.3', helo: 'pool-b.mailer.test' },
      { from: 'account-a.test', remoteAddress: '127.0.0.2', helo: 'pool-a.mailer.test' },
      { from: 'account-b.test', remoteAddress: '127.0.0.3', helo: 'pool-b.mailer.test' },
      // No pool of its own and no `default` pool: the machine's own address and SMTP_HELO_NAME.
      { from: 'account-c.test', remoteAddress: '127.0.0.1', helo: 'worker.mailer.test' },
    ]);
    // A session carried one pool's mail only: a's second message came on a's connection, never on b's.
    const sessions = new Map<string, Set<string>>();
    for (const m of peer.messages) sessions.set(m.sessionId, (sessions.get(m.sessionId) ?? new Set()).add(m.remoteAddress));
    expect([...sessions.values()].every((sources) => sources.size === 1)).toBe(true);
    expect(peer.connections()).toBe(3);
    // Operators find the address each attempt left from in its log line.
    const recorded = h.logLines().filter((l) => l.message === 'attempt recorded');
    expect(recorded.map((l) => l.source_address)).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.2', '127.0.0.3', undefined]);
  });
});

describe('warm-up', () => {
  let h: WorkerHarness;
  let peer: TestSmtpServer;
  beforeAll(async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify([{ name: 'warmmail', suffixes: ['warmmail.test'] }]));
    h = await startWorkerHarness({ PROVIDERS_FILE: file, WARMUP_SCHEDULE: '50,100' });
    peer = await startTestSmtpServer({ host: '127.0.0.6', port: h.smtpPort, tls: 'none' });
    h.dns.set('inbox.test', [{ type: 'MX', exchange: 'mx.warmmail.test', priority: 10 }]);
    h.dns.set('mx.warmmail.test', [{ type: 'A', address: '127.0.0.6' }]);
    h.dns.set('elsewhere.test', [{ type: 'MX', exchange: 'mx.elsewhere.test', priority: 10 }]);
    h.dns.set('mx.elsewhere.test', [{ type: 'A', address: '127.0.0.6' }]);
    // The default pool: every account without a pool of its own sends from it.
    await createEgressPool(h.deps.db, 'default');
    await addEgressAddress(h.deps.db, { pool: 'default', address: '127.0.0.2', heloName: 'new-ip.mailer.test', warmUpStartedOn: utcDay(new Date()) });
  });
  afterAll(async () => {
    await peer.close();
    await h.close();
  });

  it("holds the 51st message of the address's first day to the provider, unattempted, until the next day's allowance", async () => {
    const setup = await h.createSendingSetup({ domain: 'warming.test' });
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push(await h.queueEmail(setup, { to: [`user${i}@inbox.test`] }));
    for (const id of ids.slice(0, 50)) await h.runJob(id);
    expect(peer.messages).toHaveLength(50);
    const before = await h.readEmail(ids[50]!);
    await h.runJob(ids[50]!);
    expect(peer.messages).toHaveLength(50);
    const held = await h.readEmail(ids[50]!);
    // Still owed, due when the next UTC day begins: no attempt, no deferral, no attempt counted
    // (only the claim's `sending` event, as any claim writes it).
    expect(held.email.status).toBe('queued');
    expect(held.deliveries).toEqual([expect.objectContaining({ status: 'queued', attemptCount: 0, leaseExpiresAt: null, nextAttemptAt: nextUtcDay(new Date()) })]);
    expect(held.attempts).toEqual([]);
    expect(held.events.map((e) => e.type)).toEqual([...before.events.map((e) => e.type), 'sending']);
    expect(await h.deps.metrics.registry.getSingleMetricAsString('mailer_warm_up_postponed_deliveries_total')).toMatch(/pool="default",provider="warmmail"} 1/);

    // Mail to a destination of no provider is not capped.
    const other = await h.queueEmail(setup, { to: ['someone@elsewhere.test'] });
    await h.runJob(other);
    expect((await h.readEmail(other)).email.status).toBe('accepted');

    // The next day (a daemon whose clock reads it), the day's allowance takes it.
    const tomorrow = new Date(nextUtcDay(new Date()).getTime() + 60_000);
    const nextDay = createContainer(h.config, { now: () => tomorrow });
    try {
      await deliverMessage(nextDay, ids[50]!);
    } finally {
      await closeContainer(nextDay);
    }
    expect((await h.readEmail(ids[50]!)).email.status).toBe('accepted');
    expect(peer.messages.at(-1)).toMatchObject({ to: ['user50@inbox.test'], helo: 'new-ip.mailer.test' });
  });
});
