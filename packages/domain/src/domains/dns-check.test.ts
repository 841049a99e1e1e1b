import { evaluateDnsCheck, type DnsAnswer, type DomainDnsObservation } from './dns-check';

const expected = { ownershipToken: 'mailer-verify=token', dkimPublicKey: 'KEY' };
const found = (...values: string[]): DnsAnswer<string> => ({ kind: 'found', values });
const missing: DnsAnswer<string> = { kind: 'missing', nxdomain: true };
const servfail: DnsAnswer<string> = { kind: 'temporary', reason: 'ESERVFAIL' };
const correct: DomainDnsObservation = {
  ownership: found('unrelated', 'mailer-verify=token'),
  dkim: found('v=DKIM1; k=rsa; p=KEY'),
  dmarc: found('v=DMARC1; p=none;'),
};

describe('evaluateDnsCheck', () => {
  it('verifies every component when the records are right', () => {
    expect(evaluateDnsCheck(correct, expected)).toEqual({
      components: { ownership: 'verified', dkim: 'verified', dmarc: 'verified' },
      lastCheckStatus: 'completed',
    });
  });

  it('judges each component on its own: missing, mismatch, verified', () => {
    const outcome = evaluateDnsCheck({ ownership: missing, dkim: found('v=DKIM1; k=rsa; p=OTHER'), dmarc: correct.dmarc }, expected);
    expect(outcome.components).toEqual({ ownership: 'missing', dkim: 'mismatch', dmarc: 'verified' });
    expect(outcome.lastCheckStatus).toBe('completed');
  });

  it('leaves a component unchanged on a temporary failure and records the check as temporary_failure', () => {
    const outcome = evaluateDnsCheck({ ...correct, dkim: servfail }, expected);
    expect(outcome).toEqual({ components: { ownership: 'verified', dmarc: 'verified' }, lastCheckStatus: 'temporary_failure' });
    expect(evaluateDnsCheck({ ownership: servfail, dkim: servfail, dmarc: servfail }, expected)).toEqual({
      components: {},
      lastCheckStatus: 'temporary_failure',
    });
  });

  it('treats an empty answer as missing', () => {
    expect(evaluateDnsCheck({ ...correct, ownership: found() }, expected).components.ownership).toBe('missing');
  });

  it('accepts DMARC at the organizational domain when the domain has none', () => {
    const outcome = evaluateDnsCheck({ ...correct, dmarc: missing, organizationalDmarc: found('v=DMARC1; p=reject') }, expected);
    expect(outcome.components.dmarc).toBe('verified');
  });

  it('ranks DMARC outcomes: valid anywhere, then temporary, then mismatch, then missing', () => {
    const dmarc = (domain: DnsAnswer<string>, organizational?: DnsAnswer<string>) =>
      evaluateDnsCheck({ ...correct, dmarc: domain, organizationalDmarc: organizational }, expected);
    expect(dmarc(found('v=DMARC1; p=bogus'), servfail)).toEqual({ components: { ownership: 'verified', dkim: 'verified' }, lastCheckStatus: 'temporary_failure' });
    expect(dmarc(found('v=DMARC1; p=bogus'), missing).components.dmarc).toBe('mismatch');
    expect(dmarc(missing, found('some other text')).components.dmarc).toBe('mismatch');
    expect(dmarc(missing, missing).components.dmarc).toBe('missing');
    expect(dmarc(missing).components.dmarc).toBe('missing');
  });

  it('refuses two DMARC records at one name, as RFC 7489 does', () => {
    expect(evaluateDnsCheck({ ...correct, dmarc: found('v=DMARC1; p=none', 'v=DMARC1; p=reject') }, expected).components.dmarc).toBe('mismatch');
    expect(evaluateDnsCheck({ ...correct, dmarc: found('v=DMARC1; p=none', 'v=spf1 -all') }, expected).components.dmarc).toBe('verified');
  });

  it('accepts an ownership token pasted with quotes', () => {
    expect(evaluateDnsCheck({ ...correct, ownership: found('"mailer-verify=token"') }, expected).components.ownership).toBe('verified');
  });
});
