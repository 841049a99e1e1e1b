import { evaluateDnsCheck, type DnsAnswer, type DomainDnsObservation } from './dns-check';

const returnPath = { label: 'bounces', inboundHost: 'inbound.mailer.example', trackingHost: 'mailer.example', outboundIps: ['192.0.2.10'], spfInclude: undefined };
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
  it('judges receiving only when its MX was looked up: verified when an MX names the inbound host', () => {
    const receiving = (mx: DnsAnswer<string>) => evaluateDnsCheck({ ...correct, receivingMx: mx }, expected).components.receiving;
    expect(evaluateDnsCheck(correct, expected).components).not.toHaveProperty('receiving');
    expect(receiving(found('mx.other.example', 'Inbound.Mailer.Example.'))).toBe('verified');
    expect(receiving(found('mx.other.example'))).toBe('mismatch');
    expect(receiving(missing)).toBe('missing');
    expect(receiving(servfail)).toBeUndefined();
  });

  it('verifies every component when the records are right', () => {
    expect(evaluateDnsCheck(correct, expected)).toEqual({
      components: { ownership: 'verified', dkim: 'verified', dmarc: 'verified', return_path: 'verified' },
      pendingDkim: [],
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
    expect(outcome).toEqual({ components: { ownership: 'verified', dmarc: 'verified', return_path: 'verified' }, pendingDkim: [], lastCheckStatus: 'temporary_failure' });
    expect(evaluateDnsCheck({ ownership: servfail, dkim: servfail, dmarc: servfail, returnPathMx: servfail, returnPathTxt: servfail }, expected)).toEqual({
      components: {},
      pendingDkim: [],
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
      pendingDkim: [],
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

  it('judges the Ed25519 record, which must say k=ed25519, only when the domain has that key', () => {
    const withEd = { ...expected, dkimEd25519PublicKey: 'EDKEY' };
    expect(evaluateDnsCheck({ ...correct, dkimEd25519: found('v=DKIM1; k=ed25519; p=EDKEY') }, withEd).components.dkim_ed25519).toBe('verified');
    expect(evaluateDnsCheck({ ...correct, dkimEd25519: found('v=DKIM1; p=EDKEY') }, withEd).components.dkim_ed25519).toBe('mismatch');
    expect(evaluateDnsCheck({ ...correct, dkimEd25519: missing }, withEd).components.dkim_ed25519).toBe('missing');
    expect(evaluateDnsCheck({ ...correct, dkimEd25519: servfail }, withEd)).toMatchObject({ lastCheckStatus: 'temporary_failure' });
    expect(evaluateDnsCheck(correct, expected).components).not.toHaveProperty('dkim_ed25519');
  });

  it("judges a pending rotation's records by selector; a temporary failure leaves one out", () => {
    const pendingDkim = [
      { selector: 'new1', algorithm: 'rsa' as const, publicKey: 'NEWRSA' },
      { selector: 'new2', algorithm: 'ed25519' as const, publicKey: 'NEWED' },
    ];
    const both = evaluateDnsCheck(
      { ...correct, pendingDkim: [{ selector: 'new1', answer: found('v=DKIM1; k=rsa; p=NEWRSA') }, { selector: 'new2', answer: missing }] },
      { ...expected, pendingDkim },
    );
    expect(both).toMatchObject({ pendingDkim: [{ selector: 'new1', status: 'verified' }, { selector: 'new2', status: 'missing' }], lastCheckStatus: 'completed' });
    const failed = evaluateDnsCheck(
      { ...correct, pendingDkim: [{ selector: 'new1', answer: servfail }, { selector: 'new2', answer: found('v=DKIM1; k=ed25519; p=NEWED') }] },
      { ...expected, pendingDkim },
    );
    expect(failed).toMatchObject({ pendingDkim: [{ selector: 'new2', status: 'verified' }], lastCheckStatus: 'temporary_failure' });
  });
});
