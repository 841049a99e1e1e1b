import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/** The daemon against an MX that answers with replies of hostile size, while another MX is healthy. */
let h: WorkerHarness;
let setup: SendingSetup;
let healthy: TestSmtpServer;
let hostile: TestSmtpServer;

/** About 1 MB of `550-user user …` lines and a last `550 user`: no word saying the user is unknown. */
const MEGABYTE_REPLY = [...Array.from({ length: 2_000 }, () => `550-${'user '.repeat(100)}`), '550 user'].join('\r\n');

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'hostile-replies.test' });
  for (const [name, address] of [['healthy.test', '127.0.0.2'], ['hostile.test', '127.0.0.3']] as const) {
    h.dns.set(name, [{ type: 'MX', exchange: `mx.${name}`, priority: 10 }]);
    h.dns.set(`mx.${name}`, [{ type: 'A', address }]);
  }
  healthy = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
  hostile = await startTestSmtpServer({ host: '127.0.0.3', port: h.smtpPort, rcpt: () => MEGABYTE_REPLY });
});
afterAll(async () => {
  await h.close();
  await Promise.all([healthy.close(), hostile.close()]);
});

describe('the daemon facing a megabyte RCPT reply', () => {
  it('classifies it from its first characters and keeps delivering to a healthy destination meanwhile', async () => {
    expect(MEGABYTE_REPLY.length).toBeGreaterThan(1_000_000);
    const daemon = h.startDaemon();
    try {
      const attacked = await Promise.all(Array.from({ length: 3 }, (_, i) => h.queueEmail(setup, { to: [`victim${i}@hostile.test`] })));
      const normal = await h.queueEmail(setup, { to: ['someone@healthy.test'] });
      for (const id of [...attacked, normal]) await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() });

      const delivered = await h.waitForStatus(normal, ['accepted']);
      expect(delivered.deliveries.map((d) => d.status)).toEqual(['accepted']);
      expect(healthy.messages.map((m) => m.to)).toEqual([['someone@healthy.test']]);
      for (const id of attacked) {
        const bounced = await h.waitForStatus(id, ['bounced']);
        expect(bounced.deliveries[0]!.cause).toEqual({ code: 'remote_permanent_failure', permanent: true, smtp_code: 550, enhanced_status: null });
      }
      expect(hostile.messages).toEqual([]);
    } finally {
      await daemon.stop();
    }
  });
});
