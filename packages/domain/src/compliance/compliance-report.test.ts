import { complianceReport, failedRequirements, type ComplianceFacts } from './compliance-report';
import { tlsCountsByProvider } from './provider-tls';

const found = (...values: string[]) => ({ kind: 'found' as const, values });
const missing = { kind: 'missing' as const, nxdomain: true };
const temporary = { kind: 'temporary' as const, reason: 'ETIMEOUT' };

/** A domain meeting every requirement. */
const passing: ComplianceFacts = {
  domain: 'example.com',
  envelopeDomain: 'bounces.example.com',
  spf: [{ address: '192.0.2.1', result: 'pass' }],
  dkim: 'verified',
  dmarc: 'verified',
  reverseDns: [{ address: '192.0.2.1', ptr: found('mta1.example.net'), forward: [{ name: 'mta1.example.net', answer: found('192.0.2.1') }] }],
  tls: { gmail: { withTls: 3, inClear: 0 }, yahoo: { withTls: 1, inClear: 0 } },
  oneClickUnsubscribe: true,
  complaintRates: [{ stream: 'transactional', accepted: 10_000, complaints: 5 }],
};

const verdict = (facts: ComplianceFacts, provider: string, requirement: string) =>
  complianceReport(facts)
    .find((p) => p.provider === provider)!
    .requirements.filter((r) => r.requirement === requirement);
const statusOf = (facts: ComplianceFacts, provider: string, requirement: string) => verdict(facts, provider, requirement).map((v) => v.status);

describe('complianceReport', () => {
  it('lists each provider with the requirements it publishes, from one table', () => {
    const report = complianceReport(passing);
    expect(report.map((p) => [p.provider, p.requirements.map((r) => r.requirement)])).toEqual([
      ['gmail', ['spf_aligned', 'dkim_aligned', 'dmarc_published', 'forward_confirmed_reverse_dns', 'tls', 'one_click_unsubscribe', 'complaint_rate']],
      ['yahoo', ['spf_aligned', 'dkim_aligned', 'dmarc_published', 'forward_confirmed_reverse_dns', 'tls', 'one_click_unsubscribe', 'complaint_rate']],
      ['microsoft', ['spf_aligned', 'dkim_aligned', 'dmarc_published', 'one_click_unsubscribe', 'complaint_rate']],
    ]);
    expect(failedRequirements(report)).toEqual([]);
    expect(report.flatMap((p) => p.requirements).every((r) => r.status === 'pass')).toBe(true);
  });

  it('judges SPF per egress address: any definite non-pass fails, a lookup failure alone is unknown, no addresses is unknown', () => {
    expect(verdict(passing, 'gmail', 'spf_aligned')[0]!.reason).toContain('relaxed alignment');
    expect(verdict({ ...passing, envelopeDomain: 'example.com' }, 'gmail', 'spf_aligned')[0]!.reason).toContain('strict alignment');
    const two = (second: string) => ({ ...passing, spf: [{ address: '192.0.2.1', result: 'pass' }, { address: '192.0.2.2', result: second }] });
    expect(statusOf(two('softfail'), 'microsoft', 'spf_aligned')).toEqual(['fail']);
    expect(verdict(two('softfail'), 'microsoft', 'spf_aligned')[0]!.reason).toBe('SPF of bounces.example.com does not pass for 192.0.2.2 (softfail)');
    expect(statusOf(two('none'), 'gmail', 'spf_aligned')).toEqual(['fail']);
    expect(statusOf(two('temperror'), 'gmail', 'spf_aligned')).toEqual(['unknown']);
    expect(statusOf({ ...passing, spf: [] }, 'gmail', 'spf_aligned')).toEqual(['unknown']);
  });

  it('takes DKIM and DMARC from the domain checks: verified passes, not checked is unknown, missing or mismatched fails', () => {
    expect(statusOf({ ...passing, dkim: 'mismatch' }, 'yahoo', 'dkim_aligned')).toEqual(['fail']);
    expect(statusOf({ ...passing, dkim: 'not_checked' }, 'yahoo', 'dkim_aligned')).toEqual(['unknown']);
    expect(statusOf({ ...passing, dmarc: 'missing' }, 'microsoft', 'dmarc_published')).toEqual(['fail']);
    expect(verdict({ ...passing, dmarc: 'missing' }, 'microsoft', 'dmarc_published')[0]!.reason).toBe('the DMARC record is not published, as the last DNS check found');
  });

  it('forward-confirms each address: the PTR name must resolve back to it', () => {
    const rdns = (ptr: ComplianceFacts['reverseDns'][number]['ptr'], forward: ComplianceFacts['reverseDns'][number]['forward']) => ({
      ...passing,
      reverseDns: [passing.reverseDns[0]!, { address: '192.0.2.2', ptr, forward }],
    });
    expect(statusOf(rdns(missing, []), 'gmail', 'forward_confirmed_reverse_dns')).toEqual(['fail']);
    expect(verdict(rdns(missing, []), 'gmail', 'forward_confirmed_reverse_dns')[0]!.reason).toBe('192.0.2.2 has no PTR record');
    const elsewhere = rdns(found('mta2.example.net'), [{ name: 'mta2.example.net', answer: found('192.0.2.9') }]);
    expect(verdict(elsewhere, 'yahoo', 'forward_confirmed_reverse_dns')[0]).toMatchObject({ status: 'fail', reason: 'mta2.example.net, the PTR of 192.0.2.2, does not resolve back to it' });
    expect(statusOf(rdns(temporary, []), 'gmail', 'forward_confirmed_reverse_dns')).toEqual(['unknown']);
    expect(statusOf(rdns(found('mta2.example.net'), [{ name: 'mta2.example.net', answer: temporary }]), 'gmail', 'forward_confirmed_reverse_dns')).toEqual(['unknown']);
    const second = rdns(found('a.example.net', 'mta2.example.net'), [
      { name: 'a.example.net', answer: missing },
      { name: 'mta2.example.net', answer: found('192.0.2.2') },
    ]);
    expect(verdict(second, 'gmail', 'forward_confirmed_reverse_dns')[0]).toMatchObject({ status: 'pass', reason: expect.stringContaining('192.0.2.2 (mta2.example.net)') });
    expect(statusOf({ ...passing, reverseDns: [] }, 'gmail', 'forward_confirmed_reverse_dns')).toEqual(['unknown']);
  });

  it('judges TLS per provider from its accepted attempts', () => {
    const facts = { ...passing, tls: { gmail: { withTls: 7, inClear: 2 } } };
    expect(verdict(facts, 'gmail', 'tls')[0]).toEqual({ requirement: 'tls', status: 'fail', reason: '2 of the 9 messages accepted by Gmail in the last 24 h went without TLS' });
    expect(statusOf(facts, 'yahoo', 'tls')).toEqual(['unknown']);
    expect(statusOf(passing, 'yahoo', 'tls')).toEqual(['pass']);
  });

  it('reports one-click unsubscribe from the fact it is given', () => {
    expect(verdict(passing, 'microsoft', 'one_click_unsubscribe')[0]).toEqual({ requirement: 'one_click_unsubscribe', status: 'pass', reason: 'added by the service to every broadcast message' });
    expect(statusOf({ ...passing, oneClickUnsubscribe: false }, 'gmail', 'one_click_unsubscribe')).toEqual(['fail']);
  });

  it("holds the complaint rate against each provider's figures, one row per stream", () => {
    const rate = (complaints: number) => ({ ...passing, complaintRates: [{ stream: 'transactional' as const, accepted: 10_000, complaints }] });
    expect(statusOf(rate(10), 'gmail', 'complaint_rate')).toEqual(['pass']); // 0.1 %: not above
    expect(statusOf(rate(11), 'gmail', 'complaint_rate')).toEqual(['fail']);
    expect(statusOf(rate(11), 'yahoo', 'complaint_rate')).toEqual(['pass']);
    expect(statusOf(rate(29), 'yahoo', 'complaint_rate')).toEqual(['pass']);
    expect(verdict(rate(30), 'yahoo', 'complaint_rate')[0]).toEqual({
      requirement: 'complaint_rate',
      stream: 'transactional',
      status: 'fail',
      reason: 'transactional mail: 30 complaints over 10000 accepted deliveries in the last 24 h (0.3 %) reaches 0.3 %, which Yahoo never accepts',
    });
    expect(statusOf(rate(11), 'microsoft', 'complaint_rate')).toEqual(['fail']);
    expect(statusOf({ ...passing, complaintRates: [{ stream: 'transactional', accepted: 0, complaints: 0 }] }, 'gmail', 'complaint_rate')).toEqual(['unknown']);
  });

  it('names the provider and requirement of each failure', () => {
    const report = complianceReport({ ...passing, dmarc: 'missing', tls: { yahoo: { withTls: 0, inClear: 1 } } });
    expect(failedRequirements(report).map((f) => `${f.provider}:${f.verdict.requirement}`)).toEqual(['gmail:dmarc_published', 'yahoo:dmarc_published', 'yahoo:tls', 'microsoft:dmarc_published']);
  });
});

describe('tlsCountsByProvider', () => {
  it("counts attempts by the provider the daemons' table names for each MX host, leaving other providers out", () => {
    const providers = [
      { name: 'gmail', suffixes: ['google.com'] },
      { name: 'yahoo', suffixes: ['yahoodns.net'] },
      { name: 'apple', suffixes: ['icloud.com'] },
    ];
    expect(
      tlsCountsByProvider(providers, [
        { mxHost: 'aspmx.l.google.com', tls: true, attempts: 4 },
        { mxHost: 'alt1.aspmx.l.google.com', tls: false, attempts: 1 },
        { mxHost: 'mx-eu.mail.am0.yahoodns.net', tls: true, attempts: 2 },
        { mxHost: 'mx01.mail.icloud.com', tls: false, attempts: 9 },
        { mxHost: 'mx.example.org', tls: false, attempts: 3 },
      ]),
    ).toEqual({ gmail: { withTls: 4, inClear: 1 }, yahoo: { withTls: 2, inClear: 0 } });
  });
});
