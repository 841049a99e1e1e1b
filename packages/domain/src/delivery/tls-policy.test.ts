import { decideHostTlsPolicy, sessionMeetsPolicy, type HostPolicyInputs } from './tls-policy';

const verified12 = { version: 'TLSv1.2', verified: true };

describe('decideHostTlsPolicy', () => {
  it.each<[string, HostPolicyInputs, object]>([
    ['no policy, opportunistic sender', { sender: 'opportunistic', mtaSts: null }, { applied: 'opportunistic', enforced: false, hostAllowed: true, requiresVerifiedTls: false }],
    ['no policy, require_tls sender', { sender: 'require_tls', mtaSts: null }, { applied: 'require_tls', enforced: true, failureCause: 'tls_required_unavailable' }],
    ['mode none is no policy', { sender: 'opportunistic', mtaSts: { mode: 'none', mxMatches: false } }, { applied: 'opportunistic', enforced: false, hostAllowed: true }],
    ['enforce, matching host', { sender: 'opportunistic', mtaSts: { mode: 'enforce', mxMatches: true } }, { applied: 'mta-sts', enforced: true, failureCause: 'tls_policy_failed', hostAllowed: true }],
    ['enforce wins over require_tls', { sender: 'require_tls', mtaSts: { mode: 'enforce', mxMatches: false } }, { applied: 'mta-sts', enforced: true, hostAllowed: false }],
    ['testing is counted, not enforced', { sender: 'opportunistic', mtaSts: { mode: 'testing', mxMatches: false } }, { applied: 'mta-sts', enforced: false, failureCause: null, hostAllowed: false, requiresVerifiedTls: true }],
    ['require_tls wins over testing', { sender: 'require_tls', mtaSts: { mode: 'testing', mxMatches: true } }, { applied: 'require_tls', enforced: true }],
  ])('%s', (_label, inputs, expected) => {
    expect(decideHostTlsPolicy(inputs)).toMatchObject(expected);
  });
});

describe('sessionMeetsPolicy', () => {
  const enforce = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'enforce', mxMatches: true } });
  const testingElsewhere = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: { mode: 'testing', mxMatches: false } });
  const opportunistic = decideHostTlsPolicy({ sender: 'opportunistic', mtaSts: null });

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
