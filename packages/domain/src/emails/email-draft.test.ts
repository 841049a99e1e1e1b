import { sendingIdentityProblem } from './email-draft';

describe('sendingIdentityProblem', () => {
  it('names the rule that failed', () => {
    expect(sendingIdentityProblem(undefined)).toMatch(/no active sender/);
    expect(sendingIdentityProblem({ configuredState: 'disabled', domainReady: true })).toMatch(/disabled/);
    expect(sendingIdentityProblem({ configuredState: 'enabled', domainReady: false })).toMatch(/domain is not ready/);
    expect(sendingIdentityProblem({ configuredState: 'enabled', domainReady: true })).toBeNull();
  });
});
