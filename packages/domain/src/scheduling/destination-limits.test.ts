import { limitRuleFor, type DestinationLimitRule } from './destination-limits';

const rules: DestinationLimitRule[] = [
  { pattern: '*.outlook.com', connections: 3 },
  { pattern: 'mx?.example.net', messagesPerMinute: 60 },
  { pattern: '*', messagesPerConnection: 50 },
];

describe('limitRuleFor', () => {
  it('takes the first rule matching any MX host, case-insensitively', () => {
    expect(limitRuleFor(rules, ['a.b.OUTLOOK.com'])?.connections).toBe(3);
    expect(limitRuleFor(rules, ['mx9.example.org', 'mx1.example.net'])?.messagesPerMinute).toBe(60);
  });

  it('falls through to later rules, and to none', () => {
    expect(limitRuleFor(rules, ['mx10.example.net'])?.pattern).toBe('*');
    expect(limitRuleFor(rules.slice(0, 2), ['mx.other.test'])).toBeUndefined();
  });

  it('does not let * match across dots where the pattern names a suffix', () => {
    expect(limitRuleFor(rules.slice(0, 1), ['outlook.com.evil.test'])).toBeUndefined();
  });
});
