import { findDomain, type DomainRow } from '@mailer/db';
import { newWebhookSecret, requiredDnsRecords, seal, WEBHOOK_SECRET_SEAL_PURPOSE, type DnsRecordInstruction } from '@mailer/domain';
import { checkDomainDns, loadPublishedDkimKeys } from '@mailer/operations';
import { insertWebhookEndpoint, startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { rotateDueDkimKeys } from './jobs/rotate-dkim-keys';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';
import { verifyWithDkimpy } from './testing/verify-dkim-dkimpy';

let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;

beforeAll(async () => {
  h = await startWorkerHarness({ DKIM_ROTATION_INTERVAL: '30d' });
  // insertReadyDomain writes the domain as a database migrated by 0024 holds it: no Ed25519 key.
  setup = await h.createSendingSetup({ domain: 'rotate.test' });
  h.dns.set('inbox.test', [{ type: 'MX', exchange: 'mx.inbox.test', priority: 10 }]);
  h.dns.set('mx.inbox.test', [{ type: 'A', address: '127.0.0.5' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.5', port: h.smtpPort });
  // Its other records, so that checks keep it ready.
  for (const record of requiredDnsRecords(await domainRow(), h.config.returnPath)) {
    if (record.purpose === 'ownership' || record.purpose === 'dmarc') h.dns.set(record.name, [{ type: 'TXT', data: record.value }]);
  }
});
afterAll(async () => {
  await peer.close();
  await h.close();
});

const domainRow = async (): Promise<DomainRow> => (await findDomain(h.deps.db, setup.accountId, setup.domain.id))!;
const check = async () => (await checkDomainDns(h.deps.db, h.deps.dns, h.config.returnPath, h.config.encryptionKey, await domainRow(), h.deps.now))!;

/** The DKIM records GET /v1/domains/{id}/dns lists now. */
async function dkimRecords(): Promise<DnsRecordInstruction[]> {
  const domain = await domainRow();
  const records = requiredDnsRecords(domain, h.config.returnPath, await loadPublishedDkimKeys(h.deps.db, domain, h.deps.now()));
  return records.filter((r) => r.purpose === 'dkim' || r.purpose === 'dkim_ed25519');
}

/** Publishes exactly the records in these states (as a careful owner does), and no other DKIM record. */
async function publish(states: string[]): Promise<Record<string, string>> {
  const published: Record<string, string> = {};
  for (const record of await dkimRecords()) {
    if (states.includes(record.state!)) {
      h.dns.set(record.name, [{ type: 'TXT', data: record.value }]);
      published[record.name] = record.value;
    } else {
      h.dns.remove(record.name);
    }
  }
  return published;
}

/** Delivers one message and returns it as the receiver got it. */
async function deliver(subject: string): Promise<Buffer> {
  const emailId = await h.queueEmail(setup, { to: ['ann@inbox.test'], subject, text: `${subject}: the body.` });
  await h.runJob(emailId);
  const message = peer.messages.find((m) => m.raw.toString().includes(`Subject: ${subject}`));
  return message!.raw;
}

const selectorsOf = (raw: Buffer) => [...raw.toString('latin1').matchAll(/^DKIM-Signature:[^]*?\bs=([a-z0-9]+);/gm)].map((m) => m[1]);

describe('DKIM keys through delivery', () => {
  it('adds the Ed25519 signature to an existing domain once its one new record verifies', async () => {
    // Its RSA record is published; the check gives it its Ed25519 key, whose record is not there yet.
    expect((await dkimRecords()).map((r) => r.purpose)).toEqual(['dkim']);
    await publish(['active']);
    expect(await check()).toMatchObject({ ownershipStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'verified', dkimEd25519Status: 'missing' });
    const rsaOnly = await deliver('Before Ed25519');
    expect((await verifyDkim(rsaOnly, h.dns.address)).map((r) => r.status.result)).toEqual(['pass']);

    const records = await publish(['active']);
    expect(await check()).toMatchObject({ dkimStatus: 'verified', dkimEd25519Status: 'verified' });
    const both = await deliver('With Ed25519');
    expect((await verifyDkim(both, h.dns.address)).map((r) => [(r as { algo?: string }).algo, r.status.result])).toEqual([
      ['rsa-sha256', 'pass'],
      ['ed25519-sha256', 'pass'],
    ]);
    expect(await verifyWithDkimpy([both], records)).toEqual([
      [
        { algorithm: 'rsa-sha256', pass: true },
        { algorithm: 'ed25519-sha256', pass: true },
      ],
    ]);
  });

  it('rotates on schedule; mail signed just before the switch and just after both verify while the old records retire', async () => {
    const hook = await insertWebhookEndpoint(h.deps.db, {
      accountId: setup.accountId,
      url: 'https://hooks.example.com/dkim',
      events: ['domain.dkim_rotation_pending'],
      description: null,
      secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, newWebhookSecret()),
      now: h.deps.now(),
    });
    // Not due yet: the keys have signed for less than DKIM_ROTATION_INTERVAL.
    expect(await rotateDueDkimKeys(h.deps)).toBe(0);
    await h.deps.db`update domains set dkim_activated_at = now() - interval '31 days' where id = ${setup.domain.id}`;
    expect(await rotateDueDkimKeys(h.deps)).toBe(1);
    expect(await rotateDueDkimKeys(h.deps)).toBe(0);
    const pending = (await dkimRecords()).filter((r) => r.state === 'pending');
    expect(pending.map((r) => r.purpose)).toEqual(['dkim', 'dkim_ed25519']);
    const events = await h.deps.db`select e.type, e.data from webhook_events e join webhook_deliveries d on d.event_id = e.id where d.endpoint_id = ${hook.id}`;
    expect(events).toEqual([{ type: 'domain.dkim_rotation_pending', data: { domain_id: setup.domain.id, name: 'rotate.test', records: pending } }]);

    const oldSelectors = (await dkimRecords()).filter((r) => r.state === 'active').map((r) => r.name.split('.')[0]);
    await publish(['active', 'pending']);
    const before = await deliver('Just before the switch');
    expect(selectorsOf(before)).toEqual(oldSelectors);

    const checked = await check();
    expect(checked).toMatchObject({ dkimStatus: 'verified', dkimEd25519Status: 'verified' });
    const after = await deliver('Just after the switch');
    expect(selectorsOf(after)).toEqual(pending.map((r) => r.name.split('.')[0]));

    // The owner publishes what GET /dns lists as active and retiring, and nothing else.
    const states = (await dkimRecords()).map((r) => r.state);
    expect(states).toEqual(['active', 'active', 'retiring', 'retiring']);
    const records = await publish(['active', 'retiring']);
    for (const message of [before, after]) {
      expect((await verifyDkim(message, h.dns.address)).map((r) => r.status.result)).toEqual(['pass', 'pass']);
    }
    const bothPass = [
      { algorithm: 'rsa-sha256', pass: true },
      { algorithm: 'ed25519-sha256', pass: true },
    ];
    expect(await verifyWithDkimpy([before, after], records)).toEqual([bothPass, bothPass]);
  });
});
