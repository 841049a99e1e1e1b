import { addEgressAddress, createEgressPool, setAccountEgressPool, type ProvisionedAccount } from '@mailer/db';
import { newId, reputationHour } from '@mailer/domain';
import { insertQueuedEmail, insertSender, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let dns: TestDnsServer;

const GOOD_ADDRESS = '203.0.113.10';
const BAD_ADDRESS = '203.0.113.20';

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms', OUTBOUND_IPS: GOOD_ADDRESS, SMTP_HELO_NAME: 'mta.mailer.test' });
  // Forward-confirmed: the PTR names mta10, which resolves back. Not confirmed: mta20 resolves elsewhere.
  dns.set('10.113.0.203.in-addr.arpa', [{ type: 'PTR', target: 'mta10.mailer.test' }]);
  dns.set('mta10.mailer.test', [{ type: 'A', address: GOOD_ADDRESS }]);
  dns.set('20.113.0.203.in-addr.arpa', [{ type: 'PTR', target: 'mta20.mailer.test' }]);
  dns.set('mta20.mailer.test', [{ type: 'A', address: '203.0.113.99' }]);
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

type Instruction = { purpose: string; type: 'TXT' | 'MX'; name: string; value: string };
type Report = { domain_id: string; providers: { provider: string; requirements: { requirement: string; status: string; reason: string; stream?: string }[] }[] };

/** An account sending from `address` (its own pool), with a domain whose records are published except those `skip` names. */
async function accountWithDomain(name: string, address: string, skip: string[] = []) {
  const account = await api.createAccount();
  const pool = name.split('.')[0]!;
  await createEgressPool(api.deps.db, pool);
  await addEgressAddress(api.deps.db, { pool, address, heloName: `mta.${name}`, warmUpStartedOn: null });
  await setAccountEgressPool(api.deps.db, account.account.id, pool);
  const auth = { Authorization: `Bearer ${account.management_key}` };
  const created = await api.http.post('/v1/domains').set(auth).send({ name });
  expect(created.status).toBe(201);
  const records = (await api.http.get(`/v1/domains/${created.body.id}/dns`).set(auth)).body.records as Instruction[];
  for (const r of records.filter((r) => !skip.includes(r.purpose) && r.purpose !== 'dkim_ed25519')) {
    if (r.type === 'MX') dns.set(r.name, [{ type: 'MX', exchange: r.value.split(' ')[1]!, priority: 10 }]);
    else dns.set(r.name, [{ type: 'TXT', data: r.value }]);
  }
  expect((await api.http.post(`/v1/domains/${created.body.id}/check-dns`).set(auth).send({})).status).toBe(200);
  return { account, auth, domainId: created.body.id as string };
}

const compliance = async (domainId: string, auth: Record<string, string>) => {
  const res = await api.http.get(`/v1/domains/${domainId}/compliance`).set(auth);
  expect(res.status).toBe(200);
  return res.body as Report;
};

/** `provider requirement: status`, one line per verdict, for the whole report. */
const statuses = (report: Report) => report.providers.flatMap((p) => p.requirements.map((r) => `${p.provider} ${r.requirement}: ${r.status}`));
const reason = (report: Report, provider: string, requirement: string) =>
  report.providers.find((p) => p.provider === provider)!.requirements.find((r) => r.requirement === requirement)!.reason;

describe('GET /v1/domains/:id/compliance', () => {
  it("passes a domain whose records, egress address, TLS and complaints meet the providers' rules", async () => {
    const { account, auth, domainId } = await accountWithDomain('good.example.test', GOOD_ADDRESS);
    const accountId = account.account.id;
    const sender = await insertSender(api.deps.db, accountId, domainId, 'hello@good.example.test');
    const email = await insertQueuedEmail(api.deps.db, { accountId, senderId: sender.id, domainId, from: 'hello@good.example.test', to: ['ann@gmail.example'] });
    const attempt = (number: number, mxHost: string, tls: boolean, outcome = 'accepted') => api.deps.db`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, tls, mx_host)
      values (${newId('attempt')}, ${email.id}, ${number}, now(), now(), ${outcome}, ${api.deps.db.json(['ann@gmail.example'])}, ${tls}, ${mxHost})`;
    await attempt(1, 'gmail-smtp-in.l.google.com', true);
    await attempt(2, 'alt1.gmail-smtp-in.l.google.com', true);
    await attempt(3, 'mta7.am0.yahoodns.net', false, 'deferred'); // not accepted: says nothing of the mail Yahoo took
    await attempt(4, 'mta5.am0.yahoodns.net', true);
    await api.deps.db`
      insert into account_reputation_hours (account_id, stream, hour, terminal, accepted, hard_bounces, complaints)
      values (${accountId}, 'transactional', ${reputationHour(new Date())}, 2000, 2000, 0, 1)`;

    const report = await compliance(domainId, auth);
    expect(report.domain_id).toBe(domainId);
    expect(statuses(report)).toEqual([
      ...['gmail', 'yahoo'].flatMap((p) => [
        `${p} spf_aligned: pass`,
        `${p} dkim_aligned: pass`,
        `${p} dmarc_published: pass`,
        `${p} forward_confirmed_reverse_dns: pass`,
        `${p} tls: pass`,
        `${p} one_click_unsubscribe: pass`,
        `${p} complaint_rate: pass`,
      ]),
      'microsoft spf_aligned: pass',
      'microsoft dkim_aligned: pass',
      'microsoft dmarc_published: pass',
      'microsoft one_click_unsubscribe: pass',
      'microsoft complaint_rate: pass',
    ]);
    expect(reason(report, 'gmail', 'spf_aligned')).toBe(
      'SPF of bounces.good.example.test passes for every egress address; the envelope domain bounces.good.example.test is under good.example.test (relaxed alignment)',
    );
    expect(reason(report, 'yahoo', 'forward_confirmed_reverse_dns')).toBe('every egress address is forward-confirmed: 203.0.113.10 (mta10.mailer.test)');
    expect(reason(report, 'gmail', 'tls')).toBe('all 2 messages accepted by Gmail in the last 24 h went over TLS');
    expect(reason(report, 'microsoft', 'one_click_unsubscribe')).toBe('added by the service to every broadcast message');
    expect(report.providers[0]!.requirements.at(-1)).toEqual({
      requirement: 'complaint_rate',
      stream: 'transactional',
      status: 'pass',
      reason: 'transactional mail: 1 complaint over 2000 accepted deliveries in the last 24 h (0.05 %) is within 0.1 %',
    });
  });

  it('fails what DNS does not publish or confirm, and says unknown where nothing was sent', async () => {
    const { auth, domainId } = await accountWithDomain('bad.example.test', BAD_ADDRESS, ['dmarc', 'return_path_mx', 'return_path_spf']);
    // Without a verified return path the envelope domain is the domain itself, whose SPF does not name the address.
    dns.set('bad.example.test', [{ type: 'TXT', data: 'v=spf1 ip4:198.51.100.1 -all' }]);
    const report = await compliance(domainId, auth);
    expect(statuses(report).filter((s) => s.startsWith('gmail'))).toEqual([
      'gmail spf_aligned: fail',
      'gmail dkim_aligned: pass',
      'gmail dmarc_published: fail',
      'gmail forward_confirmed_reverse_dns: fail',
      'gmail tls: unknown',
      'gmail one_click_unsubscribe: pass',
      'gmail complaint_rate: unknown',
    ]);
    expect(reason(report, 'microsoft', 'spf_aligned')).toBe('SPF of bad.example.test does not pass for 203.0.113.20 (fail)');
    expect(reason(report, 'yahoo', 'forward_confirmed_reverse_dns')).toBe('mta20.mailer.test, the PTR of 203.0.113.20, does not resolve back to it');
    expect(reason(report, 'gmail', 'dmarc_published')).toBe('the DMARC record is not published, as the last DNS check found');

    dns.fail('20.113.0.203.in-addr.arpa', 'servfail');
    expect(statuses(await compliance(domainId, auth))).toContain('gmail forward_confirmed_reverse_dns: unknown');
  });

  it("answers 404 for another account's domain", async () => {
    const { domainId } = await accountWithDomain('mine.example.test', GOOD_ADDRESS);
    const other = await api.createAccount();
    const res = await api.http.get(`/v1/domains/${domainId}/compliance`).set({ Authorization: `Bearer ${other.management_key}` });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('domain_not_found');
  });
});
