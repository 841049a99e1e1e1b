import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dsnCause, reportEffect, reportFinding } from '@mailer/domain';

const accepted = { status: 'accepted' as const, delayReportedAt: null, complainedAt: null };
import { readReport } from './read-report';

/**
 * Real-world-shaped reports (apps/inbound/src/fixtures): the MIME structure, field names and
 * folding of what each system sends. `__TOKEN__` stands where the return-path token goes.
 */
const fixture = (name: string) => readFileSync(path.join(__dirname, '..', 'fixtures', name));
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
