import type { Socket } from 'node:net';
import { newId } from '@mailer/domain';
import { startInboundHarness, type InboundHarness } from './testing/inbound-harness';

/**
 * The listener while clients attack it (docs/api-decisions.md, "Return path"): each attack runs
 * beside a normal session from another address, which must still be served.
 */
let h: InboundHarness;

beforeAll(async () => {
  h = await startInboundHarness({ INBOUND_MAX_CONNECTIONS_PER_ADDRESS: '3', INBOUND_REPORT_CONCURRENCY: '1' });
});
afterAll(() => h.close());

/** A multipart/report whose delivery-status part holds `deliveryStatus` after the per-message fields. */
const dsn = (deliveryStatus: string) =>
  'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n' +
  `--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.recipient.example\r\n\r\n${deliveryStatus}--x--\r\n`;

const userUnknown = (recipient: string) => dsn(`Final-Recipient: rfc822; ${recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n`);

/** The pen test's report: 2 MB of 249,000 blank-line-separated groups. */
const GROUP_BOMB = dsn('A: b\r\n\r\n'.repeat(249_000));

const deliveryStatus = async (deliveryId: string) => (await h.deps.db`select status from deliveries where id = ${deliveryId}`)[0]?.status;
const refusedRecipients = async (reason: string) => (await h.deps.metrics.refusedRecipients.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe('the inbound listener under attack', () => {
  it('reads four 2 MB reports of 249,000 groups one at a time while a normal DSN from another address is applied', async () => {
    const attacker = await h.acceptedMessage('example.com', ['mallory@recipient.example']);
    const victim = await h.acceptedMessage('example.com', ['alice@recipient.example']);
    const attackAddress = h.returnPathOf(attacker.deliveries[0]!.id);
    const normalAddress = h.returnPathOf(victim.deliveries[0]!.id);
    let mostReading = 0;
    const sampler = setInterval(() => (mostReading = Math.max(mostReading, h.deps.reading.running())), 1);
    try {
      const [normal, ...attacks] = await Promise.all([
        h.send([normalAddress], userUnknown('alice@recipient.example'), { localAddress: '127.0.0.2' }),
        ...['127.0.0.1', '127.0.0.1', '127.0.0.3', '127.0.0.3'].map((localAddress) => h.send([attackAddress], GROUP_BOMB, { localAddress })),
      ]);
      expect(normal).toEqual({ accepted: true, responseCode: 250 });
      expect(attacks).toEqual(Array.from({ length: 4 }, () => ({ accepted: true, responseCode: 250 })));
    } finally {
      clearInterval(sampler);
    }
    expect(await deliveryStatus(victim.deliveries[0]!.id)).toBe('bounced');
    expect(await deliveryStatus(attacker.deliveries[0]!.id)).toBe('accepted');
    expect(mostReading).toBe(1);
  });

  it('answers 421 4.7.0 to an address holding INBOUND_MAX_CONNECTIONS_PER_ADDRESS connections, while another address is served', async () => {
    const sent = await h.acceptedMessage('example.com', ['bob@recipient.example']);
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const { greeting, socket } = await h.connect('127.0.0.1');
        held.push(socket);
        expect(greeting).toMatch(/^220 /);
      }
      const refusedBefore = (await h.deps.metrics.refusedConnections.get()).values[0]?.value ?? 0;
      const fourth = await h.connect('127.0.0.1');
      fourth.socket.destroy();
      expect(fourth.greeting).toMatch(/^421 4\.7\.0 /);
      expect((await h.deps.metrics.refusedConnections.get()).values[0]?.value).toBe(refusedBefore + 1);

      const address = h.returnPathOf(sent.deliveries[0]!.id);
      expect(await h.send([address], userUnknown('bob@recipient.example'), { localAddress: '127.0.0.2' })).toEqual({ accepted: true, responseCode: 250 });
      expect(await deliveryStatus(sent.deliveries[0]!.id)).toBe('bounced');

      // Once one of its connections closes, the address may open another.
      held.pop()!.destroy();
      for (;;) {
        const again = await h.connect('127.0.0.1');
        held.push(again.socket);
        if (again.greeting.startsWith('220 ')) break;
        expect(again.greeting).toMatch(/^421 4\.7\.0 /);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('refuses a forged token at RCPT, before DATA: its report is never received', async () => {
    const sent = await h.acceptedMessage('example.com', ['carol@recipient.example']);
    const genuine = h.returnPathOf(sent.deliveries[0]!.id);
    const forged = genuine.replace(/^b-(.{49})(.)/, (_m, head: string, last: string) => `b-${head}${last === '0' ? '1' : '0'}`);
    const readBefore = (await h.deps.metrics.reports.get()).values.reduce((sum, v) => sum + v.value, 0);
    const forgedBefore = await refusedRecipients('forged');

    expect(await h.send([forged], GROUP_BOMB)).toMatchObject({ accepted: false, responseCode: 550 });
    expect(await refusedRecipients('forged')).toBe(forgedBefore + 1);
    expect((await h.deps.metrics.reports.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(readBefore);
    expect(await deliveryStatus(sent.deliveries[0]!.id)).toBe('accepted');
  });

  it('looks up only verified tokens: with the database away, a forged token is still 550 and a verified one 451', async () => {
    const away = await startInboundHarness({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable' });
    try {
      const verified = away.returnPathOf(newId('delivery'));
      expect(await away.send([verified.replace('@', '0@')], 'Subject: x\r\n\r\nx\r\n')).toMatchObject({ accepted: false, responseCode: 550 });
      expect(await away.send(['b-abc@bounces.unknown-domain.example'], 'Subject: x\r\n\r\nx\r\n')).toMatchObject({ accepted: false, responseCode: 550 });
      expect(await away.send([verified], 'Subject: x\r\n\r\nx\r\n')).toMatchObject({ accepted: false, responseCode: 451 });
    } finally {
      await away.close();
    }
  });
});
