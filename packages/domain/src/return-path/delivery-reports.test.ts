import type { DeliveryStatus } from '../delivery/message-status';
import { dsnCause, reportEffect, reportFinding } from './delivery-reports';

describe('dsnCause', () => {
  it('classifies the remote reply of the Diagnostic-Code with the DSN status as the enhanced status', () => {
    expect(dsnCause('5.2.2', 'smtp; 552 5.2.2 <a@example.org>: mailbox full')).toEqual({
      code: 'mailbox_full',
      permanent: true,
      smtp_code: 552,
      enhanced_status: '5.2.2',
    });
    expect(dsnCause('5.1.1', 'smtp; 550 5.1.1 user unknown')?.code).toBe('recipient_unknown');
    expect(dsnCause('5.1.1', 'X-Postfix; unknown user: "a"')).toEqual({ code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' });
    expect(dsnCause('5.0.0', null)?.code).toBe('remote_permanent_failure');
    expect(dsnCause('5.7.1', 'smtp; 554 5.7.1 rejected as spam')?.code).toBe('message_rejected');
  });

  it('gives nothing for a status that is not permanent or not a status', () => {
    expect(dsnCause('4.2.2', 'smtp; 452 4.2.2 over quota')).toBeUndefined();
    expect(dsnCause('2.0.0', null)).toBeUndefined();
    expect(dsnCause('garbage', null)).toBeUndefined();
  });

  it('reads a diagnostic of hostile size in linear time, from its first characters', () => {
    const MB = 1024 * 1024;
    expect(dsnCause('5.0.0', `smtp; 550 ${'user '.repeat(MB / 5)}`)?.code).toBe('remote_permanent_failure');
    expect(dsnCause('5.0.0', `X-Unix; ${'mailbox '.repeat(MB / 8)}`)?.code).toBe('remote_permanent_failure');
    expect(dsnCause('5.0.0', `smtp; ${'550-address\r\n'.repeat(MB / 13)}550 unknown`)?.code).toBe('remote_permanent_failure');
    expect(dsnCause('5.0.0', `smtp; 550 5.1.1 recipient unknown ${'user '.repeat(MB / 5)}`)).toEqual({
      code: 'recipient_unknown',
      permanent: true,
      smtp_code: 550,
      enhanced_status: '5.0.0',
    });
  });
});

describe('reportEffect', () => {
  const failed = reportFinding({ kind: 'failed', status: '5.2.2', diagnosticCode: 'smtp; 552 5.2.2 quota' });
  const delayed = reportFinding({ kind: 'delayed', status: '4.4.7', diagnosticCode: null });
  const complaint = reportFinding({ kind: 'complaint', feedbackType: 'abuse' });
  const delivery = (status: DeliveryStatus, reported: { delayReportedAt?: Date; complainedAt?: Date } = {}) => ({
    status,
    delayReportedAt: reported.delayReportedAt ?? null,
    complainedAt: reported.complainedAt ?? null,
  });

  it('bounces an accepted delivery on a permanent failure, with the cause its status gives', () => {
    expect(reportEffect(failed, delivery('accepted'))).toEqual({ kind: 'bounce', cause: expect.objectContaining({ code: 'mailbox_full' }) });
    const temporary = reportFinding({ kind: 'failed', status: '4.2.2', diagnosticCode: 'smtp; 552 5.2.2 quota' });
    expect(reportEffect(temporary, delivery('accepted'))).toEqual({ kind: 'none', reason: 'not_permanent' });
  });

  it('adds a delay to an accepted delivery, a complaint to a delivered one', () => {
    expect(reportEffect(delayed, delivery('accepted'))).toEqual({ kind: 'observation', observation: 'delayed' });
    expect(reportEffect(complaint, delivery('accepted'))).toEqual({ kind: 'observation', observation: 'complained' });
    expect(reportEffect(complaint, delivery('bounced'))).toEqual({ kind: 'observation', observation: 'complained' });
    expect(reportEffect({ kind: 'complaint', feedbackType: 'not-spam' }, delivery('accepted'))).toEqual({ kind: 'none', reason: 'not_a_complaint' });
  });

  it('applies a delay and a complaint once per delivery', () => {
    const at = new Date();
    expect(reportEffect(delayed, delivery('accepted', { delayReportedAt: at }))).toEqual({ kind: 'none', reason: 'already_reported' });
    expect(reportEffect(complaint, delivery('accepted', { complainedAt: at }))).toEqual({ kind: 'none', reason: 'already_reported' });
    expect(reportEffect(complaint, delivery('accepted', { delayReportedAt: at }))).toEqual({ kind: 'observation', observation: 'complained' });
  });

  it('changes nothing for a delivery no server accepted, or one already bounced', () => {
    for (const status of ['queued', 'sending', 'deferred', 'failed'] as const) {
      for (const report of [failed, delayed, complaint]) expect(reportEffect(report, delivery(status))).toEqual({ kind: 'none', reason: 'not_delivered' });
    }
    expect(reportEffect(failed, delivery('bounced'))).toEqual({ kind: 'none', reason: 'already_final' });
    expect(reportEffect(delayed, delivery('bounced'))).toEqual({ kind: 'none', reason: 'already_final' });
  });
});
