import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { claimTlsReport, settleTlsReport, TLS_REPORT_CLAIM_STALE_MS, tlsSessionsOfDay } from './tls-report-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const now = new Date('2030-03-02T01:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('tlsSessionsOfDay', () => {
  it("counts the UTC day's sessions by recipient domain, policy, result, MX host and address, and nothing without TLS evidence", async () => {
    const attempt = (n: number, startedAt: string, domain: string | null, policy: string | null, result: string | null, mxHost = 'mx.a.test') => database.db`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, mx_host, mx_address, tls_policy, tls_result, recipient_domain)
      values (${`att_tls${n}`}, ${`em_tls${n}`}, 1, ${startedAt}, ${startedAt}, 'accepted', '[]', ${mxHost}, '192.0.2.1', ${policy}, ${result}, ${domain})`;
    await attempt(1, '2030-03-01T00:00:00.000Z', 'a.test', 'mta-sts', 'success');
    await attempt(2, '2030-03-01T23:59:59.999Z', 'a.test', 'mta-sts', 'success');
    await attempt(3, '2030-03-01T12:00:00.000Z', 'a.test', 'mta-sts', 'certificate-expired', 'mx2.a.test');
    await attempt(4, '2030-03-01T12:00:00.000Z', 'b.test', 'opportunistic', 'success', 'mx.b.test');
    // The days around it, and attempts that reached no TLS negotiation.
    await attempt(5, '2030-02-28T23:59:59.999Z', 'a.test', 'mta-sts', 'success');
    await attempt(6, '2030-03-02T00:00:00.000Z', 'a.test', 'mta-sts', 'success');
    await attempt(7, '2030-03-01T12:00:00.000Z', 'a.test', null, null);
    await attempt(8, '2030-03-01T12:00:00.000Z', null, 'mta-sts', 'success');

    expect(await tlsSessionsOfDay(database.db, '2030-03-01')).toEqual(
      new Map([
        [
          'a.test',
          [
            { policy: 'mta-sts', result: 'certificate-expired', mxHost: 'mx2.a.test', mxAddress: '192.0.2.1', sessions: 1 },
            { policy: 'mta-sts', result: 'success', mxHost: 'mx.a.test', mxAddress: '192.0.2.1', sessions: 2 },
          ],
        ],
        ['b.test', [{ policy: 'opportunistic', result: 'success', mxHost: 'mx.b.test', mxAddress: '192.0.2.1', sessions: 1 }]],
      ]),
    );
  });
});

describe('claimTlsReport and settleTlsReport', () => {
  it('gives a report to one claim, to another once that claim is stale, and to none once settled', async () => {
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-01', now)).toBe(true);
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-01', later(TLS_REPORT_CLAIM_STALE_MS))).toBe(false);
    // Another day and another domain are reports of their own.
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-02', now)).toBe(true);
    expect(await claimTlsReport(database.db, 'b.test', '2030-03-01', now)).toBe(true);
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-01', later(TLS_REPORT_CLAIM_STALE_MS + 1))).toBe(true);
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-01', later(TLS_REPORT_CLAIM_STALE_MS + 2))).toBe(false);

    await settleTlsReport(database.db, 'a.test', '2030-03-01', 'failed', 'every address refused it');
    expect(await claimTlsReport(database.db, 'a.test', '2030-03-01', later(10 * TLS_REPORT_CLAIM_STALE_MS))).toBe(false);
    expect(await database.db`select status, detail, claimed_at from tls_reports where policy_domain = 'a.test' and day = '2030-03-01'`).toEqual([
      { status: 'failed', detail: 'every address refused it', claimed_at: later(TLS_REPORT_CLAIM_STALE_MS + 1) },
    ]);
  });
});
