import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { simpleParser } from 'mailparser';
import { TLS_RESULTS } from '@mailer/domain';
import {
  mtaStsPolicy,
  POLICY_CA_FILE,
  startTestPolicyHost,
  startTestReportReceiver,
  startTestSmtpServer,
  TLS_REPORT_SCHEMA_FILE,
  type TestPolicyHost,
  type TestReportReceiver,
  type TestSmtpServer,
} from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { sendTlsReports } from './send-tls-reports';

/** The daily TLS reports (RFC 8460; docs/api-decisions.md, "Receivers' TLS policies"), received by real peers. */
let h: WorkerHarness;
let policyHost: TestPolicyHost;
let receiver: TestReportReceiver;
let setup: SendingSetup;
const peers: TestSmtpServer[] = [];

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validReport = ajv.compile(JSON.parse(readFileSync(TLS_REPORT_SCHEMA_FILE, 'utf8')) as object);

/** The operator's report signing key, and its record at tlsrpt._domainkey.worker.mailer.test. */
const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
const SIGNING_KEY_FILE = path.join(mkdtempSync(path.join(tmpdir(), 'tlsrpt-')), 'dkim.pem');
writeFileSync(SIGNING_KEY_FILE, signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
const SIGNING_RECORD = `v=DKIM1; k=rsa; p=${signing.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

/** dkimpy's verdict (an implementation independent of the signer's), the key given as the DNS answer. */
const dkimpyVerifies = (raw: Buffer) =>
  execFileSync('/usr/bin/python3', ['-c', 'import dkim, sys; r = sys.argv[1].encode(); print(dkim.verify(sys.stdin.buffer.read(), dnsfunc=lambda name, timeout=5: r))', SIGNING_RECORD], { input: raw })
    .toString()
    .trim() === 'True';

async function mx(domain: string, host: string, address: string, tls: 'starttls' | 'none') {
  h.dns.set(domain, [{ type: 'MX', exchange: host, priority: 10 }]);
  h.dns.set(host, [{ type: 'A', address }]);
  const peer = await startTestSmtpServer({ host: address, port: h.smtpPort, tls });
  peers.push(peer);
  return peer;
}

async function deliver(to: string) {
  const emailId = await h.queueEmail(setup, { to: [to] });
  await h.runJob(emailId);
}

beforeAll(async () => {
  policyHost = await startTestPolicyHost();
  receiver = await startTestReportReceiver();
  h = await startWorkerHarness({
    MTA_STS_CA_FILE: POLICY_CA_FILE,
    MTA_STS_POLICY_PORT: String(policyHost.port),
    TLSRPT_FROM: 'tlsrpt@worker.mailer.test',
    TLSRPT_ORGANIZATION: 'worker.mailer.test',
    TLSRPT_DKIM_SELECTOR: 'tlsrpt',
    TLSRPT_DKIM_KEY_FILE: SIGNING_KEY_FILE,
  });
  setup = await h.createSendingSetup({ domain: 'reports-sender.test' });
});
afterAll(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
  await h.close();
  await Promise.all([policyHost.close(), receiver.close()]);
});

it("sends each domain publishing _smtp._tls the previous UTC day's report once, over https: and mailto:, in RFC 8460's JSON", async () => {
  // An MTA-STS domain (testing mode) whose sessions met the policy, reporting to an https: address.
  await mx('testing.sts.test', 'mx1.tls.test', '127.0.0.2', 'starttls');
  h.dns.set('_mta-sts.testing.sts.test', [{ type: 'TXT', data: 'v=STSv1; id=r1' }]);
  h.dns.set('mta-sts.testing.sts.test', [{ type: 'A', address: '127.0.0.1' }]);
  policyHost.answer('testing.sts.test', { kind: 'policy', body: mtaStsPolicy('testing', ['*.tls.test']) });
  h.dns.set('_smtp._tls.testing.sts.test', [{ type: 'TXT', data: `v=TLSRPTv1; rua=https://reports.sts.test:${receiver.port}/v1/tlsrpt` }]);
  h.dns.set('reports.sts.test', [{ type: 'A', address: '127.0.0.1' }]);
  // A domain without a policy whose MX has no STARTTLS, reporting to a mailto: address.
  await mx('plain-reports.test', 'mx.plain-reports.test', '127.0.0.3', 'none');
  h.dns.set('_smtp._tls.plain-reports.test', [{ type: 'TXT', data: 'v=TLSRPTv1; rua=mailto:tlsrpt@rua.test' }]);
  const ruaPeer = await mx('rua.test', 'mx.rua.test', '127.0.0.4', 'none');
  // A domain that publishes no TLSRPT record.
  await mx('quiet.test', 'mx.quiet.test', '127.0.0.5', 'none');

  await deliver('ann@testing.sts.test');
  await deliver('bob@testing.sts.test');
  await deliver('cat@plain-reports.test');
  await deliver('dan@quiet.test');

  const tomorrow = new Date(Date.now() + 86_400_000);
  const today = new Date().toISOString().slice(0, 10);
  const daemon = { ...h.deps, now: () => tomorrow };
  // Two daemons' passes at once, then one more: each report goes out once.
  const passes = await Promise.all([sendTlsReports(daemon), sendTlsReports(daemon)]);
  const again = await sendTlsReports(daemon);
  expect(passes.flatMap((p) => p.sent).sort()).toEqual(['plain-reports.test', 'testing.sts.test']);
  expect(passes.flatMap((p) => p.withoutRecord)).toEqual(['quiet.test']);
  expect(again).toEqual({ day: today, sent: [], failed: [], withoutRecord: [] });

  expect(receiver.received).toHaveLength(1);
  const posted = receiver.received[0]!;
  expect(posted).toMatchObject({ path: '/v1/tlsrpt', contentType: 'application/tlsrpt+gzip' });
  const stsReport = JSON.parse(gunzipSync(posted.body).toString('utf8'));
  expect(validReport(stsReport)).toBe(true);
  expect(validReport.errors ?? []).toEqual([]);
  expect(stsReport).toMatchObject({
    'organization-name': 'worker.mailer.test',
    'contact-info': 'tlsrpt@worker.mailer.test',
    'date-range': { 'start-datetime': `${today}T00:00:00Z`, 'end-datetime': `${today}T23:59:59Z` },
    policies: [
      {
        policy: { 'policy-type': 'sts', 'policy-domain': 'testing.sts.test', 'policy-string': expect.arrayContaining(['mode: testing', 'mx: *.tls.test']), 'mx-host': ['*.tls.test'] },
        summary: { 'total-successful-session-count': 2, 'total-failure-session-count': 0 },
      },
    ],
  });

  const [mail] = await ruaPeer.waitForMessages(1);
  expect(mail!.to).toEqual(['tlsrpt@rua.test']);
  expect(mail!.from).toBe('tlsrpt@worker.mailer.test');
  expect(mail!.raw.toString('latin1')).toMatch(/^DKIM-Signature: [^]*?d=worker\.mailer\.test;[^]*?s=tlsrpt;/);
  expect(dkimpyVerifies(mail!.raw)).toBe(true);
  expect(dkimpyVerifies(Buffer.from(mail!.raw.toString('latin1').replace('TLS report of', 'TLS report by'), 'latin1'))).toBe(false);
  const parsed = await simpleParser(mail!.raw);
  expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/report', params: { 'report-type': 'tlsrpt' } });
  expect(parsed.headers.get('tls-report-domain')).toBe('plain-reports.test');
  expect(parsed.subject).toMatch(/^Report Domain: plain-reports\.test Submitter: worker\.mailer\.test Report-ID: </);
  const attachment = parsed.attachments.find((a) => a.contentType === 'application/tlsrpt+gzip')!;
  expect(attachment.filename).toMatch(/^worker\.mailer\.test!plain-reports\.test!\d+!\d+!.+\.json\.gz$/);
  const plainReport = JSON.parse(gunzipSync(attachment.content).toString('utf8'));
  expect(validReport(plainReport)).toBe(true);
  expect(plainReport.policies).toEqual([
    {
      policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'plain-reports.test' },
      summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 1 },
      'failure-details': [{ 'result-type': 'starttls-not-supported', 'receiving-mx-hostname': 'mx.plain-reports.test', 'receiving-ip': '127.0.0.3', 'failed-session-count': 1 }],
    },
  ]);
});

it('holds the TLS results of @mailer/domain in its check constraint', async () => {
  const [constraint] = await h.deps.db`select pg_get_constraintdef(oid) as definition from pg_constraint where conname = 'attempts_tls_result_check'`;
  expect([...constraint!.definition.matchAll(/'([^']*)'/g)].map((m: RegExpMatchArray) => m[1])).toEqual([...TLS_RESULTS]);
});
