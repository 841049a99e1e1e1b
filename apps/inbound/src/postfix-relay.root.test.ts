import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTransport } from 'nodemailer';
import { freePort } from '@mailer/testing';
import { startInboundHarness, type InboundHarness } from './testing/inbound-harness';

/**
 * A real Postfix (Debian's `postfix`, its master run as root as it must be) relaying into the
 * listener over STARTTLS: a throwaway instance with its own configuration and queue under a
 * temporary directory, on loopback, started with `postfix -c DIR` (the system's /etc/postfix is
 * neither read nor touched) and stopped the same way.
 */
const run = promisify(execFile);
let h: InboundHarness;
let work: string;
let port: number;
let routeId: string;

beforeAll(async () => {
  h = await startInboundHarness();
  ({ routeId } = await h.routed('relayed.example.net', '*@relayed.example.net'));
  port = await freePort();
  work = mkdtempSync(path.join(tmpdir(), 'inbound-postfix-'));
  chmodSync(work, 0o755);
  const conf = path.join(work, 'etc');
  const queue = path.join(work, 'spool');
  const data = path.join(work, 'data');
  for (const dir of [conf, queue, data]) mkdirSync(dir);
  const { stdout } = await run('id', ['-u', 'postfix']);
  chownSync(data, Number(stdout.trim()), -1);
  writeFileSync(
    path.join(conf, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      'mail_owner = postfix',
      'setgid_group = postdrop',
      `maillog_file = ${work}/maillog`,
      'maillog_file_prefixes = /tmp',
      'syslog_name = postfix-inbound-test',
      'myhostname = relay.client.test',
      'mydestination =',
      'local_transport = error:local delivery disabled',
      'alias_maps =',
      'alias_database =',
      'inet_interfaces = 127.0.0.1',
      'inet_protocols = ipv4',
      'mynetworks = 127.0.0.0/8',
      'smtpd_relay_restrictions = permit_mynetworks, reject',
      'smtpd_peername_lookup = no',
      'smtp_dns_support_level = disabled',
      `relayhost = [127.0.0.1]:${h.port}`,
      // Encrypted, as MTAs send: the listener's self-signed certificate is not verified.
      'smtp_tls_security_level = encrypt',
      'smtp_tls_loglevel = 1',
    ].join('\n') + '\n',
  );
  const services = [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'tlsmgr unix - - n 1000? 1 tlsmgr',
    'postlog unix-dgram n - n - 1 postlogd',
  ];
  writeFileSync(path.join(conf, 'master.cf'), services.join('\n') + '\n');
  await run('postfix', ['-c', conf, 'start']);
});
afterAll(async () => {
  if (work) {
    await run('postfix', ['-c', path.join(work, 'etc'), 'stop']).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
  await h?.close();
});

it('takes mail a real Postfix relays to it over STARTTLS, byte for byte past its trace headers', async () => {
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  const raw = 'From: alice@client.test\r\nTo: help@relayed.example.net\r\nSubject: Through Postfix\r\nMessage-ID: <pf-1@client.test>\r\n\r\nRelayed.\r\n';
  await transport.sendMail({ envelope: { from: 'alice@client.test', to: ['help@relayed.example.net'] }, raw });
  transport.close();
  let rows: { raw: Buffer; recipients: string[]; mail_from: string }[] = [];
  for (const deadline = Date.now() + 20_000; rows.length === 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = (await h.deps.db`select raw, recipients, mail_from from inbound_emails where route_id = ${routeId}`) as never;
  }
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ recipients: ['help@relayed.example.net'], mail_from: 'alice@client.test' });
  const stored = rows[0]!.raw.toString('latin1');
  // Postfix prepends its Received header; what follows is the message as given.
  expect(stored).toMatch(/^Received: from /);
  expect(stored).toContain('Subject: Through Postfix');
  expect(stored).toContain('\r\n\r\nRelayed.\r\n');
});
