import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import type { Daemon } from '../daemon';
import { deferDeliveries, startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

/** The compiled CLI (`npm run cli`), as an operator runs it, against this test's database and Redis prefix. */
const CLI = path.resolve(__dirname, '..', '..', '..', 'cli', 'dist', 'main.js');

let h: WorkerHarness;
let daemon: Daemon;
let silent: TestSmtpServer;
let refusing: Server;

beforeAll(async () => {
  h = await startWorkerHarness({ SMTP_CONNECT_TIMEOUT: '30s', SMTP_COMMAND_TIMEOUT: '30s', DESTINATION_SUSPEND_AFTER: '2', DESTINATION_SUSPENSION: '5m', RETRY_SCHEDULE: '10m' });
  silent = await startTestSmtpServer({ host: '127.0.0.3', port: h.smtpPort, silent: true });
  refusing = await new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(h.smtpPort, '127.0.0.4', () => resolve(server));
  });
  for (const [domain, address] of [['silent.test', '127.0.0.3'], ['refusing.test', '127.0.0.4']] as const) {
    h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
    h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  }
  daemon = h.startDaemon();
});
afterAll(async () => {
  await daemon.stop();
  await silent.close();
  await new Promise((resolve) => refusing.close(resolve));
  await h.close();
});

async function destinations() {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'queue', 'destinations', '--json'], { env: { PATH: process.env.PATH ?? '', ...h.env } });
  return (JSON.parse(stdout) as { destinations: Record<string, unknown>[] }).destinations;
}

describe('queue destinations', () => {
  it("lists a running daemon's destinations: owed, held, in flight, concurrency and suspension", async () => {
    const setup = await h.createSendingSetup({ domain: 'listing.test' });
    const post = async (domain: string, count: number) => {
      const ids = [];
      for (let i = 0; i < count; i++) ids.push(await h.queueEmail(setup, { to: [`u${i}@${domain}`] }));
      await h.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt: new Date() })));
    };
    await post('silent.test', 12);
    await post('refusing.test', 3);
    const later = await h.queueEmail(setup, { to: ['later@unrouted.test'] });
    await deferDeliveries(h.deps.db, [later], new Date(Date.now() + 3_600_000));
    let listed: Record<string, unknown>[] = [];
    const deadline = Date.now() + 20_000;
    for (;;) {
      listed = await destinations();
      const silentOne = listed.find((d) => d.id !== null && (d.mx_hosts as string[])[0] === 'mx.silent.test');
      const refusingOne = listed.find((d) => (d.mx_hosts as string[])[0] === 'mx.refusing.test');
      if (silentOne?.in_flight === 5 && refusingOne?.suspended_until) break;
      if (Date.now() > deadline) throw new Error(`not listed as expected: ${JSON.stringify(listed)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(listed.find((d) => (d.mx_hosts as string[])[0] === 'mx.silent.test')).toEqual({
      id: expect.stringMatching(/^d_[0-9a-f]{12}$/),
      provider: null,
      mx_hosts: ['mx.silent.test'],
      domains: ['silent.test'],
      owed: 12,
      held: 12,
      in_flight: 5,
      concurrency: 5,
      suspended_until: null,
      daemons: 1,
    });
    const refusingOne = listed.find((d) => (d.mx_hosts as string[])[0] === 'mx.refusing.test')!;
    expect(refusingOne).toMatchObject({ domains: ['refusing.test'], owed: 3, held: 0, in_flight: 0, concurrency: 1 });
    expect(Date.parse(refusingOne.suspended_until as string)).toBeGreaterThan(Date.now() + 60_000);
    // Owed to a domain no daemon routed (its retry is not due yet): listed by domain alone.
    expect(listed.find((d) => d.id === null)).toMatchObject({ mx_hosts: [], domains: ['unrouted.test'], owed: 1, held: 0 });
  });
});
