import { buildTlsReport, parseTlsRptRecord, previousUtcDay } from './tls-report';

describe('parseTlsRptRecord', () => {
  it('reads the mailto: and https: report URIs of the one TLSRPTv1 record', () => {
    expect(parseTlsRptRecord(['v=spf1 -all', 'v=TLSRPTv1; rua=mailto:tlsrpt@example.org, https://reports.example.org/v1'])).toEqual({
      rua: ['mailto:tlsrpt@example.org', 'https://reports.example.org/v1'],
    });
  });

  it('is no record when there is none, several, or no usable URI', () => {
    expect(parseTlsRptRecord([])).toBeNull();
    expect(parseTlsRptRecord(['v=TLSRPTv1; rua=mailto:a@x.test', 'v=TLSRPTv1; rua=mailto:b@x.test'])).toBeNull();
    expect(parseTlsRptRecord(['v=TLSRPTv1; rua=http://plain.example.org/'])).toBeNull();
    expect(parseTlsRptRecord(['v=TLSRPTv10; rua=mailto:a@x.test'])).toBeNull();
  });
});

describe('buildTlsReport', () => {
  it('sums sessions per policy type and details failures by result, MX host and address', () => {
    const report = buildTlsReport({
      organizationName: 'mailer.example',
      contactInfo: 'tlsrpt@mailer.example',
      day: '2026-11-26',
      policyDomain: 'example.org',
      counts: [
        { policy: 'mta-sts', result: 'success', mxHost: 'mx1.example.org', mxAddress: '192.0.2.1', sessions: 7 },
        { policy: 'mta-sts', result: 'certificate-expired', mxHost: 'mx2.example.org', mxAddress: '192.0.2.2', sessions: 2 },
        { policy: 'mta-sts', result: 'certificate-expired', mxHost: 'mx2.example.org', mxAddress: '192.0.2.2', sessions: 1 },
        { policy: 'opportunistic', result: 'starttls-not-supported', mxHost: 'mx3.example.org', mxAddress: null, sessions: 1 },
        { policy: 'dane', result: 'success', mxHost: 'mx4.example.org', mxAddress: '192.0.2.4', sessions: 4 },
      ],
      stsPolicy: { lines: ['version: STSv1', 'mode: enforce', 'mx: *.example.org', 'max_age: 86400'], mx: ['*.example.org'] },
      tlsaRecords: new Map([['mx4.example.org', ['3 1 1 00ff']]]),
    });
    expect(report).toEqual({
      'organization-name': 'mailer.example',
      'date-range': { 'start-datetime': '2026-11-26T00:00:00Z', 'end-datetime': '2026-11-26T23:59:59Z' },
      'contact-info': 'tlsrpt@mailer.example',
      'report-id': '2026-11-26_example.org@mailer.example',
      policies: [
        {
          policy: { 'policy-type': 'sts', 'policy-string': ['version: STSv1', 'mode: enforce', 'mx: *.example.org', 'max_age: 86400'], 'policy-domain': 'example.org', 'mx-host': ['*.example.org'] },
          summary: { 'total-successful-session-count': 7, 'total-failure-session-count': 3 },
          'failure-details': [{ 'result-type': 'certificate-expired', 'receiving-mx-hostname': 'mx2.example.org', 'receiving-ip': '192.0.2.2', 'failed-session-count': 3 }],
        },
        {
          policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'example.org' },
          summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 1 },
          'failure-details': [{ 'result-type': 'starttls-not-supported', 'receiving-mx-hostname': 'mx3.example.org', 'failed-session-count': 1 }],
        },
        {
          policy: { 'policy-type': 'tlsa', 'policy-string': ['3 1 1 00ff'], 'policy-domain': 'example.org', 'mx-host': ['mx4.example.org'] },
          summary: { 'total-successful-session-count': 4, 'total-failure-session-count': 0 },
        },
      ],
    });
  });
});

describe('previousUtcDay', () => {
  it('is the UTC day before, across months and years', () => {
    expect(previousUtcDay(new Date('2026-11-27T00:30:00Z'))).toBe('2026-11-26');
    expect(previousUtcDay(new Date('2027-01-01T23:59:59Z'))).toBe('2026-12-31');
  });
});
