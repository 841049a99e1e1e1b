import { createServer, type Server } from 'node:net';
import { changeQueue, findDestination, liftDestination, type DestinationSnapshots } from '@mailer/operations';
import { readDestinationSnapshots, requestDestinationLift } from '@mailer/queue';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import type { Daemon } from '../daemon';
import { startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

/** `destination lift` (docs/api-decisions.md, "Queue operations") against a running daemon. */
let h: WorkerHarness;
let daemon: Daemon;
let refusing: Server;
let sink: TestSmtpServer | undefined;
let snapshots: DestinationSnapshots;

beforeAll(async () => {
  h = await startWorkerHarness({ DESTINATION_SUSPEND_AFTER: '2', DESTINATION_SUSPENSION: '5m', RETRY_SCHEDULE: '10m' });
  refusing = await new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(h.smtpPort, '127.0.0.71', () => resolve(server));
  });
  h.dns.set('lifted.test', [{ type: 'MX', exchange: 'mx.lifted.test', priority: 10 }]);
  h.dns.set('mx.lifted.test', [{ type: 'A', address: '127.0.0.71' }]);
  snapshots = () => readDestinationSnapshots(h.deps.producerRedis, h.config.redisPrefix);
  daemon = h.startDaemon();
});
afterAll(async () => {
  await daemon.stop();
  await sink?.close();
  if (refusing.listening) await new Promise((resolve) => refusing.close(resolve));
  await h.close();
});

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const destination = () => findDestination(snapshots, 'mx.lifted.test').catch(() => undefined);

describe('destination lift', () => {
  it('lifts a suspension in the running daemon, after which a flush delivers the deferred mail', async () => {
    const setup = await h.createSendingSetup({ domain: 'lift-sender.test' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await h.queueEmail(setup, { to: [`u${i}@lifted.test`] }));
    await h.deps.deliveryQueue.enqueueMany(ids.map((emailId) => ({ emailId, dueAt: new Date() })));
    const suspended = await until(async () => ((await destination())?.suspendedUntil ? destination() : undefined));
    for (const id of ids) await h.waitForStatus(id, ['deferred']);

    // The destination is back: the operator lifts the suspension instead of waiting 5 minutes.
    await new Promise((resolve) => refusing.close(resolve));
    sink = await startTestSmtpServer({ host: '127.0.0.71', port: h.smtpPort });
    const lifted = await liftDestination({ destinationSnapshots: snapshots, requestLift: (d, at) => requestDestinationLift(h.deps.producerRedis, h.config.redisPrefix, d, at) }, suspended!.id, new Date());
    expect(lifted).toEqual({ id: suspended!.id, mx_hosts: ['mx.lifted.test'], suspended_until: suspended!.suspendedUntil, lifted: true });
    await until(async () => ((await destination())?.suspendedUntil === null ? true : undefined));
    expect(h.logLines().some((line) => line.message === 'destination suspension lifted')).toBe(true);

    expect(await changeQueue({ db: h.deps.db, deliveryQueue: async () => h.deps.deliveryQueue, destinationSnapshots: snapshots }, 'flush', { destination: suspended!.id }, new Date())).toMatchObject({ changed: 3 });
    for (const id of ids) await h.waitForStatus(id, ['accepted']);
    expect(sink.messages.flatMap((m) => m.to).sort()).toEqual(['u0@lifted.test', 'u1@lifted.test', 'u2@lifted.test']);

    // Not suspended any more: a second lift is a no-op.
    expect(await liftDestination({ destinationSnapshots: snapshots, requestLift: async () => undefined }, 'mx.lifted.test', new Date())).toMatchObject({ lifted: false });
    // Snapshots are published every few seconds: the waits on them take that long, however fast the machine.
  }, 120_000);
});
