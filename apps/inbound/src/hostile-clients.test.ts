import { newId } from '@mailer/domain';
import { startInboundHarness, type InboundHarness } from './testing/inbound-harness';

/**
 * The listener while clients attack it (docs/api-decisions.md, "Return path"): each attack runs
 * beside a normal session from another address, which must still be served.
 */
let h: InboundHarness;

beforeAll(async () => {
  h = await startInboundHarness();
});
afterAll(() => h.close());

/** A multipart/report whose delivery-status part holds `deliveryStatus` after the per-message fields. */
const dsn = (deliveryStatus: string) =>
  'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n' +
  `--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.recipient.example\r\n\r\n${deliveryStatus}--x--\r\n`;

/** The pen test's report: 2 MB of 249,000 blank-line-separated groups. */
const GROUP_BOMB = dsn('A: b\r\n\r\n'.repeat(249_000));

const deliveryStatus = async (deliveryId: string) => (await h.deps.db`select status from deliveries where id = ${deliveryId}`)[0]?.status;
const refusedRecipients = async (reason: string) => (await h.deps.metrics.refusedRecipients.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe('the inbound listener under attack', () => {
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
