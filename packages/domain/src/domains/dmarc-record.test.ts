import { isDmarcCandidate, isValidDmarcRecord } from './dmarc-record';

describe('DMARC records', () => {
  it('accepts v=DMARC1 first and a valid policy', () => {
    expect(isValidDmarcRecord('v=DMARC1; p=none;')).toBe(true);
    expect(isValidDmarcRecord('v=DMARC1;p=reject;sp=quarantine;rua=mailto:d@example.com')).toBe(true);
    expect(isValidDmarcRecord('v=DMARC1; rua=mailto:d@example.com; p=quarantine')).toBe(true);
  });

  it('refuses a missing or bad policy, v not first, and bad sp', () => {
    expect(isValidDmarcRecord('v=DMARC1')).toBe(false);
    expect(isValidDmarcRecord('v=DMARC1; p=maybe')).toBe(false);
    expect(isValidDmarcRecord('p=none; v=DMARC1')).toBe(false);
    expect(isValidDmarcRecord('v=DMARC1; p=none; sp=sometimes')).toBe(false);
    expect(isValidDmarcRecord('v=spf1 -all')).toBe(false);
  });

  it('recognizes what claims to be a DMARC record', () => {
    expect(isDmarcCandidate('v=DMARC1; p=maybe')).toBe(true);
    expect(isDmarcCandidate('"v=DMARC1; p=none"')).toBe(true);
    expect(isDmarcCandidate('google-site-verification=x')).toBe(false);
  });
});
