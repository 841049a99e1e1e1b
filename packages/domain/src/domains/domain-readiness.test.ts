import { VERIFICATION_STATUS_VALUES } from './dns-check';
import { isDomainReady } from './domain-readiness';

describe('isDomainReady', () => {
  it('is ready only when ownership, DKIM and DMARC are all verified', () => {
    expect(isDomainReady({ ownershipStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'verified' })).toBe(true);
    for (const other of VERIFICATION_STATUS_VALUES.filter((status) => status !== 'verified')) {
      expect(isDomainReady({ ownershipStatus: other, dkimStatus: 'verified', dmarcStatus: 'verified' })).toBe(false);
      expect(isDomainReady({ ownershipStatus: 'verified', dkimStatus: other, dmarcStatus: 'verified' })).toBe(false);
      expect(isDomainReady({ ownershipStatus: 'verified', dkimStatus: 'verified', dmarcStatus: other })).toBe(false);
    }
  });
});
