import { policyAllowsHost, type MtaStsPolicy } from './mta-sts-policies';

const policy = (...mx: string[]): MtaStsPolicy => ({ id: '1', mode: 'enforce', mx, maxAgeSeconds: 86_400 });

describe('policyAllowsHost', () => {
  it('matches names exactly and wildcards by one label (RFC 8461 section 4.1)', () => {
    expect(policyAllowsHost(policy('mx.example.org'), 'MX.example.org.')).toBe(true);
    expect(policyAllowsHost(policy('*.example.org'), 'mx1.example.org')).toBe(true);
    expect(policyAllowsHost(policy('*.example.org'), 'a.b.example.org')).toBe(false);
    expect(policyAllowsHost(policy('*.example.org'), 'example.org')).toBe(false);
    expect(policyAllowsHost(policy('mx.example.org'), 'mx.example.org.evil.test')).toBe(false);
    expect(policyAllowsHost(policy('mx.other.org', '*.example.org'), 'mx1.example.org')).toBe(true);
  });
});
