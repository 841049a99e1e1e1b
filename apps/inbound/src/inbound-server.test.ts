import type { Database } from '@mailer/db';
import { serveMetrics } from '@mailer/operations';
import { reportFixture as fixture, startInboundHarness, type AcceptedMessage, type InboundHarness } from './testing/inbound-harness';

/** The listener against a real database: which recipients it takes, and what each report changes there. */
let h: InboundHarness;
let db: Database;
const FEEDBACK_ADDRESS = 'fbl@inbound.mailer.test';

beforeAll(async () => {
  h = await startInboundHarness({ INBOUND_MAX_MESSAGE_BYTES: String(64 * 1024), INBOUND_MAX_CONNECTIONS: '3', INBOUND_FEEDBACK_ADDRESS: FEEDBACK_ADDRESS });
  db = h.deps.db;
});
afterAll(() => h.close());


type Sent = AcceptedMessage;
const acceptedMessage = (domain: string, to: string[], bcc: string[] = []) => h.acceptedMessage(domain, to, bcc);
const returnPathOf = (deliveryId: string, domain = 'example.com') => h.returnPathOf(deliveryId, domain);

async function state(sent: Sent) {
  const [email] = await db`select status, cause from emails where id = ${sent.emailId}`;
  const deliveries = await db`select id, status, cause from deliveries where email_id = ${sent.emailId} order by position`;
  const events = await db`select type, recipient, cause from events where email_id = ${sent.emailId} and type not in ('queued', 'sending') order by id`;
  const suppressions = await db`select email, reason, email_id from suppressions where account_id = ${sent.accountId} order by email`;
  const webhooks = await db`select type, recipient, recipient_kind, status, cause from webhook_events where email_id = ${sent.emailId} order by occurred_at`;
  const [sender] = await db`select accepted_count, bounced_count from senders where id = ${sent.senderId}`;
  return { email: email!, deliveries, events, suppressions, webhooks, sender: sender! };
}

describe('a DSN sent to a delivery\'s return-path address', () => {
  it('turns the accepted delivery bounced with the cause of its status, and the message, counters and webhooks follow', async () => {
    const sent = await acceptedMessage('example.com', ['alice@recipient.example']);
    const address = returnPathOf(sent.deliveries[0]!.id);
    const before = await h.reportCount('dsn', 'applied');
    const completion = () => db`select completed_at, content_purged_at from emails where id = ${sent.emailId}`;
    const [completedBefore] = await completion();

    expect(await h.send([address], fixture('postfix-over-quota.eml', address))).toEqual({ accepted: true, responseCode: 250 });

    const cause = { code: 'mailbox_full', permanent: true, smtp_code: 552, enhanced_status: '5.2.2' };
    const after = await state(sent);
    expect(after.email).toEqual({ status: 'bounced', cause });
    expect(after.deliveries).toEqual([{ id: sent.deliveries[0]!.id, status: 'bounced', cause }]);
    expect(after.events).toEqual([{ type: 'bounced', recipient: 'alice@recipient.example', cause }]);
    expect(after.sender).toEqual({ accepted_count: 0, bounced_count: 1 });
    // A full mailbox is not a hard bounce: no suppression.
    expect(after.suppressions).toEqual([]);
    expect(after.webhooks).toEqual([{ type: 'email.bounced', recipient: 'alice@recipient.example', recipient_kind: 'to', status: 'bounced', cause }]);
    expect(await h.reportCount('dsn', 'applied')).toBe(before + 1);
    // The message was complete when it was accepted, and stays so from then.
    expect(await completion()).toEqual([completedBefore]);

    // The same DSN again changes nothing more.
    expect((await h.send([address], fixture('postfix-over-quota.eml', address))).accepted).toBe(true);
    expect((await state(sent)).events).toHaveLength(1);
  });

  it('suppresses the recipient of a hard bounce', async () => {
    const sent = await acceptedMessage('example.com', ['carl@recipient.example', 'bob@recipient.example']);
    const address = returnPathOf(sent.deliveries[1]!.id);
    await h.send([address], fixture('exim-user-unknown.eml', address));

    const after = await state(sent);
    expect(after.deliveries.map((d) => d.status)).toEqual(['accepted', 'bounced']);
    expect(after.deliveries[1]!.cause).toMatchObject({ code: 'recipient_unknown', enhanced_status: '5.0.0' });
    expect(after.suppressions).toEqual([{ email: 'bob@recipient.example', reason: 'hard_bounce', email_id: sent.emailId }]);
  });

  it('never lets one recipient bounce another: a DSN may change only the delivery its token names', async () => {
    const sent = await acceptedMessage('example.com', ['carl@recipient.example', 'bob@recipient.example'], ['eve@recipient.example']);
    const unmatchedBefore = await h.reportCount('dsn', 'unmatched');
    // Carl saw his own return path; the DSN he forges with it names bob (and then the BCC recipient).
    const carls = returnPathOf(sent.deliveries[0]!.id);
    await h.send([carls], fixture('exim-user-unknown.eml', carls));
    await h.send([carls], fixture('exim-user-unknown.eml', carls).replaceAll('bob@recipient.example', 'eve@recipient.example'));

    const after = await state(sent);
    expect(after.deliveries.map((d) => d.status)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(after.events).toEqual([]);
    expect(after.suppressions).toEqual([]);
    expect(await h.reportCount('dsn', 'unmatched')).toBe(unmatchedBefore + 2);
  });

  it('adds a delayed event for a delay and leaves the delivery accepted', async () => {
    const sent = await acceptedMessage('example.com', ['carol@recipient.example']);
    const address = returnPathOf(sent.deliveries[0]!.id);
    await h.send([address], fixture('gmail-delayed.eml', address));

    const after = await state(sent);
    expect(after.deliveries[0]!.status).toBe('accepted');
    expect(after.events).toEqual([{ type: 'delayed', recipient: 'carol@recipient.example', cause: null }]);
    expect(after.webhooks).toEqual([]);
  });
});

describe('a complaint (ARF)', () => {
  it('adds a complained event, a complaint suppression and an email.complained webhook', async () => {
    const sent = await acceptedMessage('example.com', ['heidi@yahoo.com']);
    const address = returnPathOf(sent.deliveries[0]!.id);
    const before = await h.reportCount('arf', 'applied');
    await h.send([address], fixture('yahoo-arf-complaint.eml', address));

    const after = await state(sent);
    expect(after.deliveries[0]!.status).toBe('accepted');
    expect(after.events).toEqual([{ type: 'complained', recipient: 'heidi@yahoo.com', cause: null }]);
    expect(after.suppressions).toEqual([{ email: 'heidi@yahoo.com', reason: 'complaint', email_id: sent.emailId }]);
    expect(after.webhooks).toEqual([{ type: 'email.complained', recipient: 'heidi@yahoo.com', recipient_kind: 'to', status: 'accepted', cause: null }]);
    expect(await h.reportCount('arf', 'applied')).toBe(before + 1);

    // Replayed, the same complaint (and a delay) applies once per delivery and kind.
    for (let i = 0; i < 20; i++) await h.send([address], fixture('yahoo-arf-complaint.eml', address));
    await h.send([address], fixture('gmail-delayed.eml', address).replaceAll('carol@recipient.example', 'heidi@yahoo.com'));
    await h.send([address], fixture('gmail-delayed.eml', address).replaceAll('carol@recipient.example', 'heidi@yahoo.com'));
    const replayed = await state(sent);
    expect(replayed.events.map((e) => e.type)).toEqual(['complained', 'delayed']);
    expect(replayed.webhooks).toHaveLength(1);
  });

  it('sent to INBOUND_FEEDBACK_ADDRESS, names its delivery by the envelope sender it reports', async () => {
    const sent = await acceptedMessage('example.com', ['heidi@yahoo.com']);
    const reported = returnPathOf(sent.deliveries[0]!.id);
    expect(await h.send([FEEDBACK_ADDRESS.toUpperCase()], fixture('yahoo-arf-complaint.eml', reported))).toEqual({ accepted: true, responseCode: 250 });

    expect((await state(sent)).events).toEqual([{ type: 'complained', recipient: 'heidi@yahoo.com', cause: null }]);
  });

  it('about a BCC delivery names no recipient anywhere and suppresses nothing', async () => {
    const sent = await acceptedMessage('example.com', [], ['ivan@hotmail.com']);
    const address = returnPathOf(sent.deliveries[0]!.id);
    await h.send([address], fixture('microsoft-arf-complaint.eml', address));

    const after = await state(sent);
    expect(after.events).toEqual([{ type: 'complained', recipient: null, cause: null }]);
    expect(after.suppressions).toEqual([]);
    expect(after.webhooks).toEqual([{ type: 'email.complained', recipient: null, recipient_kind: 'bcc', status: 'accepted', cause: null }]);
  });
});

describe('reports that change nothing', () => {
  it('counts a report naming a forged token, one of another domain and an unparseable message, and changes nothing', async () => {
    const sent = await acceptedMessage('example.com', ['alice@recipient.example']);
    await acceptedMessage('other.example', ['someone@recipient.example']);
    const genuine = returnPathOf(sent.deliveries[0]!.id);
    const forged = genuine.replace(/^b-(.{49})(.)/, (_m, head: string, last: string) => `b-${head}${last === '0' ? '1' : '0'}`);
    const otherDomain = returnPathOf(sent.deliveries[0]!.id, 'other.example');
    const forgedBefore = await h.reportCount('dsn', 'forged');
    const unparseableBefore = await h.reportCount('none', 'unparseable');

    // Through the feedback address, a report is read whatever return path it names.
    expect((await h.send([FEEDBACK_ADDRESS], fixture('postfix-over-quota.eml', forged))).accepted).toBe(true);
    expect((await h.send([FEEDBACK_ADDRESS], fixture('postfix-over-quota.eml', otherDomain))).accepted).toBe(true);
    expect((await h.send([genuine], fixture('yahoo-failure-notice-plain.eml', genuine))).accepted).toBe(true);

    const after = await state(sent);
    expect(after.deliveries[0]!.status).toBe('accepted');
    expect(after.events).toEqual([]);
    expect(await h.reportCount('dsn', 'forged')).toBe(forgedBefore + 2);
    expect(await h.reportCount('none', 'unparseable')).toBe(unparseableBefore + 1);

    // As the operator reads them: /metrics on INBOUND_METRICS_PORT, behind OPERATOR_TOKEN.
    const token = 'inbound-metrics-token-0123';
    const server = serveMetrics(h.deps.metrics.registry, { port: 0, host: '127.0.0.1', operatorToken: token }, h.deps.logger);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const text = await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).text();
      expect(text).toContain(`mailer_inbound_reports_total{kind="dsn",result="forged"} ${forgedBefore + 2}`);
      expect(text).toContain(`mailer_inbound_reports_total{kind="none",result="unparseable"} ${unparseableBefore + 1}`);
      expect(text).toContain('mailer_inbound_reports_reading 0');
      expect(text).toContain('mailer_inbound_reports_waiting 0');
    } finally {
      server.close();
    }
  });
});

describe('the listener', () => {
  it('refuses at RCPT anything but a verified return-path address of an existing domain (no relay), before DATA', async () => {
    const sent = await acceptedMessage('example.com', ['alice@recipient.example']);
    const genuine = returnPathOf(sent.deliveries[0]!.id);
    const refused = async () => Object.fromEntries((await h.deps.metrics.refusedRecipients.get()).values.map((v) => [v.labels.reason, v.value]));
    const before = await refused();
    const refusals = {
      other: ['someone@gmail.com', 'postmaster@bounces.example.com', 'fbl@bounces.example.com', 'b-abc@example.com', 'b-abc@bounces.com'],
      // A forged token at a customer's domain and at an unknown one alike.
      forged: ['b-abc@bounces.example.com', 'b-abc@bounces.unknown-domain.example', genuine.replace('@', '0@')],
      // A genuine token names its own domain only: at another customer's, or a deleted or unknown domain, it is refused.
      unknown: [returnPathOf(sent.deliveries[0]!.id, 'other.example'), returnPathOf(sent.deliveries[0]!.id, 'unknown-domain.example')],
    };
    await acceptedMessage('other.example', ['someone@recipient.example']);
    const replies = new Set<string>();
    for (const to of Object.values(refusals).flat()) {
      const result = await h.send([to], 'Subject: x\r\n\r\nx\r\n');
      expect(result).toMatchObject({ accepted: false, responseCode: 550 });
      replies.add(result.response!);
    }
    // One reply whatever the address and whether its domain is a customer's: nothing to probe.
    expect([...replies]).toEqual(['550 5.1.1 No such user here']);
    expect(await refused()).toEqual({
      other: (before.other ?? 0) + 5,
      forged: (before.forged ?? 0) + 3,
      unknown: (before.unknown ?? 0) + 2,
      ...(before.too_many ? { too_many: before.too_many } : {}),
    });
    expect((await h.send([genuine.toUpperCase()], 'Subject: x\r\n\r\nx\r\n')).accepted).toBe(true);
  });

  it('refuses a message over INBOUND_MAX_MESSAGE_BYTES', async () => {
    const sent = await acceptedMessage('example.com', ['alice@recipient.example']);
    const big = `Subject: big\r\n\r\n${'x'.repeat(998)}\r\n`.repeat(80);
    expect(await h.send([returnPathOf(sent.deliveries[0]!.id)], big)).toMatchObject({ accepted: false, responseCode: 552 });
  });

  it('answers 421 beyond INBOUND_MAX_CONNECTIONS, and survives malformed input', async () => {
    const sessions = [await h.connect(), await h.connect(), await h.connect()];
    expect(sessions.map((s) => s.greeting.slice(0, 3))).toEqual(['220', '220', '220']);
    const fourth = await h.connect();
    expect(fourth.greeting.slice(0, 3)).toBe('421');
    fourth.socket.destroy();

    // Garbage, a NUL byte, an overlong line and a DATA out of sequence on one session; then a disconnect mid-command.
    const [first, second] = sessions;
    first!.socket.write(`\u0000\u00ff garbage\r\nMAIL FROM:<<<>>>\r\n${'A'.repeat(100_000)}\r\nDATA\r\nRCPT TO:<>\r\n`);
    second!.socket.write('EHLO x\r\nMAIL FROM:<>\r\nRCPT TO:<b-x@bounces.exa');
    for (const s of sessions) s.socket.destroy();

    // Once the listener has seen those connections close (a 421 until then), it takes mail again.
    let after = await h.send([FEEDBACK_ADDRESS], 'Subject: still here\r\n\r\nx\r\n');
    for (const deadline = Date.now() + 10_000; after.responseCode === 421 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await h.send([FEEDBACK_ADDRESS], 'Subject: still here\r\n\r\nx\r\n');
    }
    expect(after.accepted).toBe(true);
  });
});
