import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dsnCause, reportEffect, reportFinding } from '@mailer/domain';
import { MAX_PART_HEADER_BYTES, MAX_REPORT_PART_BYTES, MAX_REPORTED_RECIPIENTS, readReport } from './read-report';

const accepted = { status: 'accepted' as const, delayReportedAt: null, complainedAt: null };

/**
 * Real-world-shaped reports (apps/inbound/src/testing/fixtures): the MIME structure, field names and
 * folding of what each system sends. `__TOKEN__` stands where the return-path token goes.
 */
const fixture = (name: string) => readFileSync(path.join(__dirname, '..', 'testing', 'fixtures', name));
const RETURN_PATH = 'b-__TOKEN__@bounces.example.com';

describe('readReport on DSNs (RFC 3464)', () => {
  it.each([
    ['postfix-over-quota.eml', 'alice@recipient.example', '5.2.2', 'mailbox_full', 552],
    ['exim-user-unknown.eml', 'bob@recipient.example', '5.0.0', 'recipient_unknown', 550],
    ['gmail-user-unknown.eml', 'dave@gmail.com', '5.1.1', 'recipient_unknown', 550],
    ['outlook-mailbox-full.eml', 'erin@outlook.com', '5.2.2', 'mailbox_full', 554],
    ['yahoo-mailbox-disabled.eml', 'frank@yahoo.com', '5.2.1', 'mailbox_disabled', 554],
  ])('%s: a permanent failure for its recipient, with the cause its status and diagnostic give', async (name, recipient, status, cause, smtpCode) => {
    const report = await readReport(fixture(name));
    expect(report?.kind).toBe('dsn');
    expect(report!.envelopeSenders).toEqual([RETURN_PATH]);
    expect(report!.recipients).toHaveLength(1);
    const [reported] = report!.recipients;
    expect(reported!.addresses).toContain(recipient);
    expect(reported!.report).toMatchObject({ kind: 'failed', status });
    const { status: s, diagnosticCode } = reported!.report as { status: string; diagnosticCode: string | null };
    expect(dsnCause(s, diagnosticCode)).toMatchObject({ code: cause, permanent: true, smtp_code: smtpCode, enhanced_status: status });
    expect(reportEffect(reportFinding(reported!.report), accepted)).toMatchObject({ kind: 'bounce', cause: { code: cause } });
  });

  it('gmail-delayed.eml: a delay (folded fields unfolded), which adds an event and bounces nothing', async () => {
    const report = await readReport(fixture('gmail-delayed.eml'));
    expect(report).toEqual({
      kind: 'dsn',
      envelopeSenders: [RETURN_PATH],
      recipients: [
        {
          addresses: ['carol@recipient.example'],
          report: { kind: 'delayed', status: '4.3.0', diagnosticCode: 'smtp; 451 4.3.0 Temporary system failure. Please try again later.' },
        },
      ],
    });
    expect(reportEffect(reportFinding(report!.recipients[0]!.report), accepted)).toEqual({ kind: 'observation', observation: 'delayed' });
  });

  it('yahoo-failure-notice-plain.eml: a plain-text bounce without a delivery-status part is no report', async () => {
    expect(await readReport(fixture('yahoo-failure-notice-plain.eml'))).toBeUndefined();
  });
});

describe('readReport on complaints (ARF, RFC 5965)', () => {
  it('yahoo-arf-complaint.eml: an abuse report naming its envelope sender and recipient', async () => {
    const report = await readReport(fixture('yahoo-arf-complaint.eml'));
    expect(report).toEqual({
      kind: 'arf',
      envelopeSenders: [RETURN_PATH, RETURN_PATH],
      recipients: [{ addresses: ['heidi@yahoo.com'], report: { kind: 'complaint', feedbackType: 'abuse' } }],
    });
    expect(reportEffect(reportFinding(report!.recipients[0]!.report), accepted)).toEqual({ kind: 'observation', observation: 'complained' });
  });

  it('microsoft-arf-complaint.eml: an abuse report whose returned message (inline) carries the envelope sender', async () => {
    const report = await readReport(fixture('microsoft-arf-complaint.eml'));
    expect(report).toEqual({
      kind: 'arf',
      envelopeSenders: [RETURN_PATH],
      recipients: [{ addresses: ['ivan@hotmail.com'], report: { kind: 'complaint', feedbackType: 'abuse' } }],
    });
  });
});

describe('readReport on anything else', () => {
  it.each([
    ['an ordinary message', 'From: a@example.org\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nHello.\r\n'],
    ['empty input', ''],
    ['binary noise', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256))],
    [
      'a report whose delivery-status names no failure or delay',
      'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; a.example\r\n\r\nFinal-Recipient: rfc822; b@example.org\r\nAction: delivered\r\nStatus: 2.0.0\r\n\r\n--x--\r\n',
    ],
    [
      'a truncated report with an unterminated part',
      'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA',
    ],
    ['a feedback report without a feedback type', 'Content-Type: multipart/report; boundary=y\r\n\r\n--y\r\nContent-Type: message/feedback-report\r\n\r\nVersion: 1\r\n\r\n--y--\r\n'],
  ])('%s is no report', async (_name, raw) => {
    expect(await readReport(Buffer.from(raw))).toBeUndefined();
  });
});

describe('readReport on reports of hostile size', () => {
  const dsnWith = (deliveryStatus: string) =>
    Buffer.from(
      'Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n' +
        '--x\r\nContent-Type: text/plain\r\n\r\nUndeliverable.\r\n' +
        `--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n${deliveryStatus}` +
        '--x\r\nContent-Type: text/rfc822-headers\r\n\r\nReturn-Path: <b-token@bounces.example.com>\r\nSubject: hi\r\n\r\n--x--\r\n',
    );
  const failure = (n: number) => `Final-Recipient: rfc822; r${n}@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n`;

  it('a delivery-status part of 249,000 blank-line-separated groups (2 MB): the groups after the first 100 recipients are not read', async () => {
    const raw = dsnWith(failure(0) + 'A: b\r\n\r\n'.repeat(249_000));
    expect(raw.length).toBeGreaterThan(1_990_000);
    expect(await readReport(raw)).toEqual({
      kind: 'dsn',
      envelopeSenders: ['b-token@bounces.example.com'],
      recipients: [{ addresses: ['r0@example.org'], report: { kind: 'failed', status: '5.1.1', diagnosticCode: null } }],
    });
  });

  it(`a DSN naming 60,000 failed recipients yields the first ${MAX_REPORTED_RECIPIENTS}`, async () => {
    const report = await readReport(dsnWith(Array.from({ length: 60_000 }, (_, n) => failure(n)).join('')));
    expect(report?.recipients).toHaveLength(MAX_REPORTED_RECIPIENTS);
    expect(report?.recipients.at(-1)?.addresses).toEqual([`r${MAX_REPORTED_RECIPIENTS - 1}@example.org`]);
  });

  it(`reads ${MAX_REPORT_PART_BYTES} bytes of the delivery-status part: a group past them, or cut by them, is not read`, async () => {
    const padding = `X-Padding: ${'p'.repeat(MAX_REPORT_PART_BYTES)}\r\n\r\n`;
    expect(await readReport(dsnWith(padding + failure(1)))).toBeUndefined();
    const cut = `${'X-Padding: p\r\n'.repeat(Math.ceil(MAX_REPORT_PART_BYTES / 14) - 3)}${failure(2)}`;
    expect(await readReport(dsnWith(failure(1) + cut))).toMatchObject({ recipients: [{ addresses: ['r1@example.org'] }] });
  });

  it(`refuses a part header past ${MAX_PART_HEADER_BYTES} bytes (mailparser's bound), one of 4,000 lines it reads`, async () => {
    const header = (lines: number) => `${'X-Trace: a\r\n'.repeat(lines)}Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n`;
    const body = '\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; a\r\n\r\nFinal-Recipient: rfc822; r@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--x--\r\n';
    expect(await readReport(Buffer.from(header(4_000) + body))).toMatchObject({ kind: 'dsn', recipients: [{ addresses: ['r@example.org'] }] });
    await expect(readReport(Buffer.from(header(5_000) + body))).rejects.toThrow('Max header size');
    await expect(readReport(Buffer.from(`Content-Type: multipart/report; ${Array.from({ length: 60_000 }, (_, i) => `n*${i}*=a`).join('; ')}${body}`))).rejects.toThrow('Max header size');
  });

  it('a 100 KB Diagnostic-Code of repeated "user" reads as a plain permanent failure', async () => {
    const report = await readReport(dsnWith(`Final-Recipient: rfc822; r@example.org\r\nAction: failed\r\nStatus: 5.0.0\r\nDiagnostic-Code: smtp; 550 ${'user '.repeat(20_000)}\r\n\r\n`));
    const { status, diagnosticCode } = report!.recipients[0]!.report as { status: string; diagnosticCode: string };
    expect(dsnCause(status, diagnosticCode)).toMatchObject({ code: 'remote_permanent_failure', smtp_code: 550 });
  });
});
