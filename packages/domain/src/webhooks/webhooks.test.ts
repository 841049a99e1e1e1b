import { deliveryEventType, endpointGivesUp, nextWebhookAttempt } from './webhook-events';
import { webhookUrlProblem } from './webhook-url';

describe('webhook rules', () => {
  it('reports terminal transitions and deferrals, nothing for queued or sending', () => {
    expect(['queued', 'sending', 'deferred', 'accepted', 'bounced', 'failed'].map((s) => deliveryEventType(s as never))).toEqual([
      undefined,
      undefined,
      'email.deferred',
      'email.accepted',
      'email.bounced',
      'email.failed',
    ]);
  });

  it('retries on the schedule, then gives up', () => {
    const now = new Date('2026-11-23T00:00:00.000Z');
    expect(nextWebhookAttempt([5_000, 300_000], 1, now)).toEqual(new Date(now.getTime() + 5_000));
    expect(nextWebhookAttempt([5_000, 300_000], 2, now)).toEqual(new Date(now.getTime() + 300_000));
    expect(nextWebhookAttempt([5_000, 300_000], 3, now)).toBeUndefined();
  });

  it('disables an endpoint once it has failed for the whole period', () => {
    const now = new Date('2026-11-23T00:00:00.000Z');
    expect(endpointGivesUp(null, 1000, now)).toBe(false);
    expect(endpointGivesUp(new Date(now.getTime() - 999), 1000, now)).toBe(false);
    expect(endpointGivesUp(new Date(now.getTime() - 1000), 1000, now)).toBe(true);
  });

  it('takes public https URLs only, unless private networks are allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/mailer', false)).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/mailer', false)).toMatch(/^must be an https:\/\/ URL; .*WEBHOOK_ALLOW_PRIVATE=true/);
    expect(webhookUrlProblem('ftp://hooks.example.com', true)).toBe('must be an https:// or http:// URL');
    expect(webhookUrlProblem('https://user:pw@hooks.example.com', false)).toMatch(/^must not carry credentials/);
    expect(webhookUrlProblem('https://127.0.0.1/x', false)).toMatch(/private.*WEBHOOK_ALLOW_PRIVATE=true/);
    expect(webhookUrlProblem('https://[::1]/x', false)).toMatch(/private/);
    expect(webhookUrlProblem('https://10.1.2.3/x', false)).toMatch(/private/);
    expect(webhookUrlProblem('https://localhost/x', false)).toMatch(/^must name a public host; .*WEBHOOK_ALLOW_PRIVATE=true/);
    expect(webhookUrlProblem('not a url', false)).toBe('must be an absolute URL');
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', true)).toBeNull();
  });
});
