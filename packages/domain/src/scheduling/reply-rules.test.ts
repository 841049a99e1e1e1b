import { parseSmtpReply } from '../delivery/classify-smtp-reply';
import { matchReplyRule, mergeReplyRules, type ReplyRule } from './reply-rules';

const rule = (name: string, conditions: Partial<ReplyRule>): ReplyRule => ({ name, action: { kind: 'suspend' }, durationMs: 60_000, ...conditions });
const rules = [
  rule('gmail-unsolicited-rate', { enhancedStatus: '4.7.28', action: { kind: 'rate', messagesPerMinute: 20 } }),
  rule('yahoo-ts04', { pattern: /\[TSS?04\]/i, action: { kind: 'concurrency', connections: 1 } }),
  rule('microsoft-s3150', { code: 550, pattern: /\(S3150\)/i }),
];
const match = (raw: string) => matchReplyRule(rules, parseSmtpReply(raw))?.name;

describe('reply rules', () => {
  it("matches a reply by code, enhanced status and text pattern, all of a rule's conditions holding", () => {
    expect(match('421-4.7.28 [203.0.113.9] Our system has detected an unusual rate of\n421-4.7.28 unsolicited mail originating from your IP address.')).toBe(
      'gmail-unsolicited-rate',
    );
    expect(match('421 4.7.0 [TSS04] Messages from 203.0.113.9 temporarily deferred due to unexpected volume or user complaints')).toBe('yahoo-ts04');
    expect(match("550 5.7.1 Unfortunately, messages from [203.0.113.9] weren't sent. Please contact your Internet service provider (S3150)")).toBe(
      'microsoft-s3150',
    );
    // The right text under another code is not the rule's reply.
    expect(match('451 4.7.1 Temporarily deferred (S3150)')).toBeUndefined();
    expect(match('250 2.0.0 OK [TS04]')).toBeUndefined();
    expect(match('550 5.1.1 User unknown')).toBeUndefined();
  });

  it("puts the operator's rules first, replacing or disabling shipped rules by name", () => {
    const mine = rule('yahoo-ts04', { pattern: /\[TS04\]/, action: { kind: 'suspend' }, durationMs: 3_600_000 });
    const extra = rule('my-relay', { code: 421, pattern: /too many connections/i, action: { kind: 'concurrency', connections: 2 } });
    const merged = mergeReplyRules(rules, [extra, mine, { name: 'microsoft-s3150', disabled: true }]);
    expect(merged.map((r) => r.name)).toEqual(['my-relay', 'yahoo-ts04', 'gmail-unsolicited-rate']);
    expect(merged[1]).toBe(mine);
  });
});
