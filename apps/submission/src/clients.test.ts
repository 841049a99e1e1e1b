import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createTransport } from 'nodemailer';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/**
 * Clients as docs/guide.md ("Send over SMTP") sets them up: Python's smtplib (Debian's python3),
 * swaks and nodemailer, over STARTTLS and implicit TLS, each verifying the self-signed
 * certificate against its kept file (or pinning its fingerprint), connecting to localhost.
 */
const run = promisify(execFile);
let h: SubmissionHarness;
let acme: SubmittingAccount;

beforeAll(async () => {
  h = await startSubmissionHarness();
  acme = await h.account();
});
afterAll(() => h.close());

const QUEUED = /250 2\.0\.0 queued as (em_[0-9A-Za-z]{22})/;

const stored = async (id: string) => {
  const [row] = await h.deps.db`select e.subject, (select count(*)::int from deliveries d where d.email_id = e.id and d.kind = 'bcc') as bcc from emails e where e.id = ${id}`;
  return row;
};

/** Sends with smtplib (which raises on any refusal, an unverified certificate included) and prints `sent`. */
const SMTPLIB = `
import smtplib, ssl, sys
from email.message import EmailMessage
port, implicit, key, sender, subject, cafile = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
context = ssl.create_default_context(cafile=cafile)
message = EmailMessage()
message["From"] = sender
message["To"] = "ann@example.test"
message["Subject"] = subject
message.set_content("Sent with smtplib.")
client = smtplib.SMTP_SSL("localhost", int(port), context=context) if implicit else smtplib.SMTP("localhost", int(port))
if not implicit:
    client.starttls(context=context)
client.login("mailer", key)
client.send_message(message, to_addrs=["ann@example.test", "hidden@example.net"])
client.quit()
print("sent")
`;

describe.each([
  ['STARTTLS', false],
  ['implicit TLS', true],
])("Python's smtplib over %s", (name, implicit) => {
  it('submits a message with a BCC from the envelope', async () => {
    const subject = `smtplib ${name}`;
    const port = String(implicit ? h.tlsPort : h.starttlsPort);
    const { stdout } = await run('/usr/bin/python3', ['-c', SMTPLIB, port, implicit ? '1' : '0', acme.sendingKey, acme.sender, subject, h.tls.certFile!]);
    expect(stdout.trim()).toBe('sent');
    const [row] = await h.deps.db`select id from emails where account_id = ${acme.accountId} and subject = ${subject}`;
    expect(await stored(row!.id)).toEqual({ subject, bcc: 1 });
  });
});

describe.each([
  ['STARTTLS', false, 'PLAIN'],
  ['implicit TLS', true, 'LOGIN'],
])('swaks over %s', (name, implicit, method) => {
  const tlsFlags = () => [implicit ? '--tlsc' : '--tls', '--tls-verify', '--tls-ca-path', h.tls.certFile!];
  const port = () => (implicit ? h.tlsPort : h.starttlsPort);
  it(`submits with AUTH ${method} and reads 250 2.0.0 queued as em_…`, async () => {
    const subject = `swaks ${name}`;
    const { stdout } = await run('swaks', [
      '--server', `localhost:${port()}`,
      ...tlsFlags(),
      '--auth', method, '--auth-user', 'mailer', '--auth-password', acme.sendingKey,
      '--from', 'app@client.test', '--to', 'ann@example.test',
      '--header', `From: ${acme.sender}`, '--header', `Subject: ${subject}`, '--header', 'To: ann@example.test',
      '--body', 'Sent with swaks.',
      '--hide-informational', '--suppress-data',
    ]);
    const id = QUEUED.exec(stdout)?.[1];
    expect(id).toBeDefined();
    expect(await stored(id!)).toEqual({ subject, bcc: 0 });
  });

  it('is refused with 535 5.7.8 for a wrong key', async () => {
    const failed = await run('swaks', [
      '--server', `localhost:${port()}`, ...tlsFlags(),
      '--auth', method, '--auth-user', 'mailer', '--auth-password', `svc_live_${'0'.repeat(40)}`,
      '--from', 'app@client.test', '--to', 'ann@example.test', '--hide-informational', '--suppress-data',
    ]).catch((error: { stdout: string }) => error);
    expect((failed as { stdout: string }).stdout).toMatch(/535 5\.7\.8 /);
  });
});

describe('nodemailer trusting the kept certificate', () => {
  it.each([
    ['STARTTLS', false],
    ['implicit TLS', true],
  ])('submits over %s to localhost with tls.ca and nothing unverified', async (name, implicit) => {
    const transport = createTransport({
      host: 'localhost',
      port: implicit ? h.tlsPort : h.starttlsPort,
      secure: implicit,
      requireTLS: !implicit,
      tls: { ca: readFileSync(h.tls.certFile!) },
      auth: { user: 'mailer', pass: acme.sendingKey },
    });
    try {
      const subject = `nodemailer ${name}`;
      const info = await transport.sendMail({ from: acme.sender, to: 'ann@example.test', subject, text: 'Sent with nodemailer.' });
      expect(await stored(QUEUED.exec(info.response)![1]!)).toEqual({ subject, bcc: 0 });
    } finally {
      transport.close();
    }
  });

  it('is refused the session by a client that does not trust it', async () => {
    const transport = createTransport({ host: 'localhost', port: h.starttlsPort, requireTLS: true, auth: { user: 'mailer', pass: acme.sendingKey } });
    try {
      await expect(transport.sendMail({ from: acme.sender, to: 'ann@example.test', subject: 'x', text: 'x' })).rejects.toThrow(/self[- ]signed certificate/);
    } finally {
      transport.close();
    }
  });
});

it('swaks --tls-verify refuses the certificate against another CA file', async () => {
  const failed = await run('swaks', [
    '--server', `localhost:${h.starttlsPort}`, '--tls', '--tls-verify', '--tls-ca-path', '/etc/ssl/certs/ca-certificates.crt',
    '--auth', 'PLAIN', '--auth-user', 'mailer', '--auth-password', acme.sendingKey,
    '--from', 'app@client.test', '--to', 'ann@example.test', '--hide-informational', '--suppress-data',
  ]).catch((error: { stdout: string; stderr: string }) => error);
  expect(`${(failed as { stdout: string }).stdout}`).not.toMatch(QUEUED);
  expect(`${(failed as { stderr: string }).stderr}`).toMatch(/TLS|certificate|verify/i);
});
