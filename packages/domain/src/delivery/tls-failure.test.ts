import { decideHostTlsPolicy } from './tls-policy';
import { tlsFailureType } from './tls-failure';

const enforce = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'enforce', mxMatches: true }, dane: null });
const elsewhere = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'testing', mxMatches: false }, dane: null });
const opportunistic = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: null, dane: null });

describe('tlsFailureType', () => {
  it('is null for a session that met its policy', () => {
    expect(tlsFailureType(enforce, { tls: { version: 'TLSv1.3', verified: true } })).toBeNull();
    expect(tlsFailureType(opportunistic, { tls: { version: 'TLSv1', verified: false } })).toBeNull();
  });

  it.each([
    ['certificate has expired', 'certificate-expired'],
    ["Hostname/IP does not match certificate's altnames: Host: mx.example.org. is not in the cert's altnames", 'certificate-host-mismatch'],
    ['self-signed certificate', 'certificate-not-trusted'],
    ['unable to verify the first certificate', 'certificate-not-trusted'],
    ['no TLS', 'starttls-not-supported'],
    ['the certificate matches none of the TLSA records', 'validation-failure'],
  ])('names the RFC 8460 result of "%s"', (reason, type) => {
    expect(tlsFailureType(enforce, { tls: null, tlsFailure: reason })).toBe(type);
  });

  it('is validation-failure for a host outside the policy, starttls-not-supported for a session in clear', () => {
    expect(tlsFailureType(elsewhere, { tls: { version: 'TLSv1.3', verified: true } })).toBe('validation-failure');
    expect(tlsFailureType(opportunistic, { tls: null })).toBe('starttls-not-supported');
    expect(tlsFailureType(enforce, { tls: { version: 'TLSv1.1', verified: true } })).toBe('validation-failure');
  });
});
