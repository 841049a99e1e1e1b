import { evaluateDnsCheck, type DnsAnswer, type DomainDnsObservation } from './dns-check';

const returnPath = { label: 'bounces', inboundHost: 'inbound.mailer.example', outboundIps: ['192.0.2.10'], spfInclude: undefined };
const expected = { ownershipToken: 'mailer-verify=token', dkimPublicKey: 'KEY', returnPath };
const found = (...values: string[]): DnsAnswer<string> => ({ kind: 'found', values });
const missing: DnsAnswer<string> = { kind: 'missing', nxdomain: true };
const servfail: DnsAnswer<string> = { kind: 'temporary', reason: 'ESERVFAIL' };
const correct: DomainDnsObservation = {
  ownership: found('unrelated', 'mailer-verify=token'),
  dkim: found('v=DKIM1; k=rsa; p=KEY'),
  dmarc: found('v=DMARC1; p=none;'),
  returnPathMx: found('inbound.mailer.example'),
  returnPathTxt: found('v=spf1 ip4:192.0.2.10 -all'),
};
const returnPathLookups = { returnPathMx: correct.returnPathMx, returnPathTxt: correct.returnPathTxt };

describe('evaluateDnsCheck', () => {
  it('verifies every component when the records are right', () => {
    expect(evaluateDnsCheck(correct, expected)).toEqual({
      components: { ownership: 'verified', dkim: 'verified', dmarc: 'verified', return_path: 'verified' },
      lastCheckStatus: 'completed',
    });
  });

  it('judges each component on its own: missing, mismatch, verified', () => {
    const outcome = evaluateDnsCheck({ ownership: missing, dkim: found('v=DKIM1; k=rsa; p=OTHER'), dmarc: correct.dmarc, ...returnPathLookups }, expected);
    expect(outcome.components).toEqual({ ownership: 'missing', dkim: 'mismatch', dmarc: 'verified', return_path: 'verified' });
    expect(outcome.lastCheckStatus).toBe('completed');
  });

  it('leaves a component unchanged on a temporary failure and records the check as temporary_failure', () => {
    const outcome = evaluateDnsCheck({ ...correct, dkim: servfail }, expected);
    expect(outcome).toEqual({ components: { ownership: 'verified', dmarc: 'verified', return_path: 'verified' }, lastCheckStatus: 'temporary_failure' });
    expect(evaluateDnsCheck({ ownership: servfail, dkim: servfail, dmarc: servfail, returnPathMx: servfail, returnPathTxt: servfail }, expected)).toEqual({
      components: {},
      lastCheckStatus: 'temporary_failure',
    });
  });

  it('verifies the return path when an MX names the inbound host and the one SPF record holds what the service asks for', () => {
    const returnPath = (mx: DnsAnswer<string>, txt: DnsAnswer<string>) =>
      evaluateDnsCheck({ ...correct, returnPathMx: mx, returnPathTxt: txt }, expected).components.return_path;
    expect(returnPath(found('INBOUND.mailer.example.'), found('v=spf1 ip4:192.0.2.10 ip4:198.51.100.1 ~all'))).toBe('verified');
    expect(returnPath(missing, missing)).toBe('missing');
    expect(returnPath(found('mx.elsewhere.example'), correct.returnPathTxt)).toBe('mismatch');
    expect(returnPath(correct.returnPathMx, missing)).toBe('mismatch');
    expect(returnPath(correct.returnPathMx, found('v=spf1 ip4:203.0.113.9 -all'))).toBe('mismatch');
    expect(returnPath(correct.returnPathMx, found('v=spf1 ip4:192.0.2.10 -all', 'v=spf1 -all'))).toBe('mismatch');
    expect(returnPath(servfail, correct.returnPathTxt)).toBeUndefined();
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
    expect(dmarc(found('v=DMARC1; p=bogus'), servfail)).toEqual({
      components: { ownership: 'verified', dkim: 'verified', return_path: 'verified' },
      lastCheckStatus: 'temporary_failure',
    });
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
