import { loadConfig } from '@mailer/config';
import { startTestSmtpServer, TransactionGauge } from '@mailer/testing';
import { closeContainer, createContainer, type WorkerDependencies } from '../container';
import { deliverMessage, startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

describe('two daemons sharing a pattern limit', () => {
  let h: WorkerHarness;
  let second: WorkerDependencies;
  beforeAll(async () => {
    h = await startWorkerHarness({
      DESTINATION_LIMITS: JSON.stringify([
        { pattern: 'mx.limited.test', connections: 2 },
        { pattern: 'mx.reused.test', messagesPerConnection: 3 },
      ]),
      SMTP_POOL_IDLE: '10s',
    });
    second = createContainer(loadConfig(h.env));
  });
  afterAll(async () => {
    await closeContainer(second);
    await h.close();
  });

  it('never has more connections open than the limit, whatever each daemon would allow', async () => {
    const transactions = new TransactionGauge();
    const peer = await startTestSmtpServer({ host: '127.0.0.8', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 100 }, transactions });
    h.dns.set('limited.test', [{ type: 'MX', exchange: 'mx.limited.test', priority: 10 }]);
    h.dns.set('mx.limited.test', [{ type: 'A', address: '127.0.0.8' }]);
    const setup = await h.createSendingSetup({ domain: 'limits.test' });
    const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => h.queueEmail(setup, { to: [`u${i}@limited.test`] })));
    await Promise.all(ids.map((id, i) => deliverMessage(i % 2 ? second : h.deps, id)));
    // Any message not accepted shows with the causes of its deliveries.
    const unaccepted = (await Promise.all(ids.map((id) => h.readEmail(id)))).filter((s) => s.email.status !== 'accepted');
    expect(unaccepted.map((s) => ({ status: s.email.status, causes: s.deliveries.map((d) => d.cause) }))).toEqual([]);
    expect(peer.messages).toHaveLength(24);
    // In DATA at once (the peer may still count a connection the client closed and gave its slot back for).
    expect(transactions.peak()).toBeLessThanOrEqual(2);
    // Under a connections limit a connection is not kept idle (the other daemon could not count it): one each.
    expect(peer.connections()).toBe(24);
    await peer.close();
  });

  it('closes a connection once it carried messagesPerConnection messages', async () => {
    const peer = await startTestSmtpServer({ host: '127.0.0.9', port: h.smtpPort, tls: 'none' });
    h.dns.set('reused.test', [{ type: 'MX', exchange: 'mx.reused.test', priority: 10 }]);
    h.dns.set('mx.reused.test', [{ type: 'A', address: '127.0.0.9' }]);
    const setup = await h.createSendingSetup({ domain: 'reuse.test' });
    for (let i = 0; i < 9; i++) await h.runJob(await h.queueEmail(setup, { to: [`u${i}@reused.test`] }));
    expect(peer.messages).toHaveLength(9);
    expect(peer.connections()).toBe(3);
    await peer.close();
  });
});
