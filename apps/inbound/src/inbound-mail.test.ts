import { INBOUND_MAX_RECIPIENTS } from '@mailer/domain';
import { startInboundHarness, type InboundHarness } from './testing/inbound-harness';

/**
 * Routed mail under the return path's hostile-input rules (docs/api-decisions.md, "Inbound
 * mail"): smuggling, recipients, size, MIME bombs and deep nesting, huge headers, malformed
 * encodings; a report to a return-path address on the same listener still applies.
 */
let h: InboundHarness;
let routeId: string;

beforeAll(async () => {
  h = await startInboundHarness({ INBOUND_REPORT_CONCURRENCY: '1' });
  ({ routeId } = await h.routed('in.example.net', '*@in.example.net'));
});
afterAll(() => h.close());

const stored = () => h.deps.db`select subject, message, recipients, raw from inbound_emails where route_id = ${routeId} order by created_at`;

/** A raw SMTP session: each command resolves with its whole reply (every line of a multi-line one). */
async function session() {
  const { socket } = await h.connect();
  let buffer = '';
  let lines: string[] = [];
  const waiters: ((reply: string[]) => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
      lines.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (/^\d{3} /.test(lines.at(-1)!)) {
        waiters.shift()?.(lines);
        lines = [];
      }
    }
  });
  const reply = () => new Promise<string[]>((resolve) => waiters.push(resolve));
  const send = (data: string) => {
    const answer = reply();
    socket.write(data);
    return answer;
  };
  const last = async (data: string) => (await send(data)).at(-1)!;
  return { send, command: (line: string) => last(`${line}\r\n`), data: (data: string) => last(data), close: () => socket.destroy() };
}

describe('routed mail', () => {
  it('is offered STARTTLS, SIZE of 25 MiB and enhanced status codes', async () => {
    const s = await session();
    const ehlo = await s.send('EHLO client.example.org\r\n');
    s.close();
    expect(ehlo.map((line) => line.slice(4))).toEqual(expect.arrayContaining(['STARTTLS', 'SIZE 26214400', 'ENHANCEDSTATUSCODES']));
  });

  it.each([
    ['LF.LF', '\n.\n'],
    ['LF.CRLF', '\n.\r\n'],
    ['CR.LF', '\r.\n'],
    ['CRLF.LF', '\r\n.\n'],
  ])('does not end the data at %s: a smuggled transaction stays inside the first message', async (name, sequence) => {
    const s = await session();
    for (const line of ['EHLO client.example.org', 'MAIL FROM:<a@client.example.org>', 'RCPT TO:<carrier@in.example.net>', 'DATA']) await s.command(line);
    const smuggled = `MAIL FROM:<a@client.example.org>\r\nRCPT TO:<victim@in.example.net>\r\nDATA\r\nSubject: Smuggled ${name}\r\n\r\nsmuggled\r\n`;
    const answer = await s.data(`Subject: Carrier ${name}\r\n\r\nfirst line${sequence}${smuggled}\r\n.\r\n`);
    expect(answer).toMatch(/^250 2\.0\.0 OK received as inb_/);
    expect(await s.command('NOOP')).toMatch(/^250 /);
    s.close();
    const rows = (await stored()).filter((r) => r.subject?.endsWith(` ${name}`));
    expect(rows.map((r) => [r.subject, r.recipients])).toEqual([[`Carrier ${name}`, ['carrier@in.example.net']]]);
    expect(rows[0]!.raw.toString('latin1')).toContain(`Subject: Smuggled ${name}`);
  });

  it(`takes ${INBOUND_MAX_RECIPIENTS} recipients and answers 452 4.5.3 to the next`, async () => {
    const s = await session();
    await s.command('EHLO client.example.org');
    await s.command('MAIL FROM:<a@client.example.org>');
    for (let i = 0; i < INBOUND_MAX_RECIPIENTS; i++) expect(await s.command(`RCPT TO:<r${i}@in.example.net>`)).toMatch(/^250 /);
    expect(await s.command('RCPT TO:<one-more@in.example.net>')).toMatch(/^452 4\.5\.3 /);
    expect(await s.command('DATA')).toMatch(/^354 /);
    expect(await s.data('Subject: Fifty\r\n\r\nx\r\n.\r\n')).toMatch(/^250 /);
    s.close();
    const [fifty] = (await stored()).filter((r) => r.subject === 'Fifty');
    expect(fifty!.recipients).toHaveLength(INBOUND_MAX_RECIPIENTS);
  });

  it('refuses a message over 25 MiB with 552 5.3.4 and stores nothing', async () => {
    const before = (await stored()).length;
    const big = `Subject: big\r\n\r\n${`${'x'.repeat(998)}\r\n`.repeat(26_500)}`;
    expect(await h.send(['big@in.example.net'], big)).toMatchObject({ accepted: false, responseCode: 552 });
    expect((await stored()).length).toBe(before);
  });

  it('refuses at the end of DATA what mailparser cannot read within its bounds (a huge header, a MIME bomb), and stores nothing', async () => {
    const before = (await stored()).length;
    const hugeHeader = `${'X-Trace: a\r\n'.repeat(5_000)}Subject: huge header\r\n\r\nx\r\n`;
    const bomb = `Subject: bomb\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n${'--b\r\nContent-Type: text/plain\r\n\r\nx\r\n'.repeat(2_000)}--b--\r\n`;
    for (const raw of [hugeHeader, bomb]) {
      expect(await h.send(['hostile@in.example.net'], raw)).toMatchObject({ accepted: false, responseCode: 550, response: '550 5.6.0 The message could not be read' });
    }
    expect((await stored()).length).toBe(before);
  });

  it('stores what it can read of deep nesting and malformed encodings, the raw bytes as they came', async () => {
    const depth = 500;
    const nested = `Subject: nested\r\n${Array.from({ length: depth }, (_, i) => `Content-Type: multipart/mixed; boundary=n${i}\r\n\r\n--n${i}\r\n`).join('')}Content-Type: text/plain\r\n\r\ndeep\r\n${Array.from({ length: depth }, (_, i) => `--n${depth - 1 - i}--\r\n`).join('')}`;
    const malformed =
      'Subject: =?utf-8?B?not base64!?= =?x-unknown?Q?abc?=\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n%%%not base64%%%\r\n\xff\xfe\r\n';
    for (const raw of [nested, malformed]) expect(await h.send(['odd@in.example.net'], Buffer.from(raw, 'latin1'))).toMatchObject({ accepted: true });
    const rows = await stored();
    expect(rows.some((r) => r.subject === 'nested')).toBe(true);
    expect(rows.at(-1)!.raw.equals(Buffer.from(malformed, 'latin1'))).toBe(true);
  });

  it('keeps applying return-path reports on the same listener', async () => {
    const sent = await h.acceptedMessage('example.com', ['alice@recipient.example']);
    const address = h.returnPathOf(sent.deliveries[0]!.id);
    const dsn =
      'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\n' +
      'Reporting-MTA: dns; mx.recipient.example\r\n\r\nFinal-Recipient: rfc822; alice@recipient.example\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--x--\r\n';
    expect(await h.send([address], dsn)).toEqual({ accepted: true, responseCode: 250 });
    const [delivery] = await h.deps.db`select status from deliveries where id = ${sent.deliveries[0]!.id}`;
    expect(delivery!.status).toBe('bounced');
  });
});
