import { decideHostTlsPolicy, sessionMeetsPolicy, type HostPolicyInputs } from './tls-policy';

const verified12 = { version: 'TLSv1.2', verified: true };

describe('decideHostTlsPolicy', () => {
  it.each<[string, HostPolicyInputs, object]>([
    ['no policy, opportunistic sender', { sender: 'opportunistic', mtaSts: null, dane: null }, { applied: 'opportunistic', enforced: false, hostAllowed: true, requiresVerifiedTls: false }],
    ['no policy, require_tls sender', { sender: 'require_tls', mtaSts: null, dane: null }, { applied: 'require_tls', enforced: true, failureCause: 'tls_required_unavailable' }],
    ['mode none is no policy', { sender: 'opportunistic', mtaSts: { mode: 'none', mxMatches: false }, dane: null }, { applied: 'opportunistic', enforced: false, hostAllowed: true }],
    ['enforce, matching host', { sender: 'opportunistic', mtaSts: { mode: 'enforce', mxMatches: true }, dane: null }, { applied: 'mta-sts', enforced: true, failureCause: 'tls_policy_failed', hostAllowed: true }],
    ['enforce wins over require_tls', { sender: 'require_tls', mtaSts: { mode: 'enforce', mxMatches: false }, dane: null }, { applied: 'mta-sts', enforced: true, hostAllowed: false }],
    ['testing is counted, not enforced', { sender: 'opportunistic', mtaSts: { mode: 'testing', mxMatches: false }, dane: null }, { applied: 'mta-sts', enforced: false, failureCause: null, hostAllowed: false, requiresVerifiedTls: true }],
    ['DANE wins over MTA-STS and require_tls', { sender: 'require_tls', mtaSts: { mode: 'enforce', mxMatches: false }, dane: 'secure' }, { applied: 'dane', enforced: true, failureCause: 'tls_policy_failed', hostAllowed: true }],
    ['a failed TLSA lookup excludes the host', { sender: 'opportunistic', mtaSts: null, dane: 'lookup_failed' }, { applied: 'dane', enforced: true, failureCause: 'dns_temporary_failure', hostAllowed: false }],
    ['require_tls wins over testing', { sender: 'require_tls', mtaSts: { mode: 'testing', mxMatches: true }, dane: null }, { applied: 'require_tls', enforced: true }],
  ])('%s', (_label, inputs, expected) => {
    expect(decideHostTlsPolicy(inputs)).toMatchObject(expected);
  });
});

describe('sessionMeetsPolicy', () => {
  const enforce = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'enforce', mxMatches: true }, dane: null });
  const testingElsewhere = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'testing', mxMatches: false }, dane: null });
  const opportunistic = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: null, dane: null });

  it('asks TLS 1.2+ and a verified certificate of a policy host', () => {
    expect(sessionMeetsPolicy(enforce, verified12)).toBe(true);
    expect(sessionMeetsPolicy(enforce, { version: 'TLSv1.3', verified: true })).toBe(true);
    expect(sessionMeetsPolicy(enforce, { version: 'TLSv1.1', verified: true })).toBe(false);
    expect(sessionMeetsPolicy(enforce, { version: 'TLSv1.2', verified: false })).toBe(false);
    expect(sessionMeetsPolicy(enforce, null)).toBe(false);
  });

  it('counts a host outside the policy as a failure whatever its TLS', () => {
    expect(sessionMeetsPolicy(testingElsewhere, verified12)).toBe(false);
  });

  it('asks only TLS of opportunistic delivery', () => {
    expect(sessionMeetsPolicy(opportunistic, { version: 'TLSv1', verified: false })).toBe(true);
    expect(sessionMeetsPolicy(opportunistic, null)).toBe(false);
  });
});
