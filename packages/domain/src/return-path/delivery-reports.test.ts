import { dsnCause, reportEffect } from './delivery-reports';

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
});

describe('reportEffect', () => {
  const failed = { kind: 'failed' as const, status: '5.2.2', diagnosticCode: 'smtp; 552 5.2.2 quota' };
  const delayed = { kind: 'delayed' as const, status: '4.4.7', diagnosticCode: null };
  const complaint = { kind: 'complaint' as const, feedbackType: 'abuse' };

  it('bounces an accepted delivery on a permanent failure, with the cause its status gives', () => {
    expect(reportEffect(failed, 'accepted')).toEqual({ kind: 'bounce', cause: expect.objectContaining({ code: 'mailbox_full' }) });
    expect(reportEffect({ ...failed, status: '4.2.2' }, 'accepted')).toEqual({ kind: 'none', reason: 'not_permanent' });
  });

  it('adds a delayed event to an accepted delivery, a complained one to a delivered delivery', () => {
    expect(reportEffect(delayed, 'accepted')).toEqual({ kind: 'event', type: 'delayed' });
    expect(reportEffect(complaint, 'accepted')).toEqual({ kind: 'event', type: 'complained' });
    expect(reportEffect(complaint, 'bounced')).toEqual({ kind: 'event', type: 'complained' });
    expect(reportEffect({ kind: 'complaint', feedbackType: 'not-spam' }, 'accepted')).toEqual({ kind: 'none', reason: 'not_a_complaint' });
  });

  it('changes nothing for a delivery no server accepted, or one already bounced', () => {
    for (const status of ['queued', 'sending', 'deferred', 'failed'] as const) {
      for (const report of [failed, delayed, complaint]) expect(reportEffect(report, status)).toEqual({ kind: 'none', reason: 'not_delivered' });
    }
    expect(reportEffect(failed, 'bounced')).toEqual({ kind: 'none', reason: 'already_final' });
    expect(reportEffect(delayed, 'bounced')).toEqual({ kind: 'none', reason: 'already_final' });
  });
});
