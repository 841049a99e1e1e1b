import { randomUUID } from 'node:crypto';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import type { ProvisionedAccount } from '@mailer/db';
import { reputationHour } from '@mailer/domain';
import { recheckDomains, RECHECK_BATCH_SIZE } from './jobs/recheck-domains';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';

/**
 * Ready domains observed again by the delivery daemon (docs/api-decisions.md, "Domains"):
 * domains created and verified through the API against the test DNS server, then changed there.
 */
let h: WorkerHarness;
let api: TestApi;
let owner: ProvisionedAccount;

beforeAll(async () => {
  h = await startWorkerHarness({ DOMAIN_RECHECK_INTERVAL: '1h' });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, DNS_SERVERS: h.dns.address, DNS_TIMEOUT: '300ms' });
  owner = await api.createAccount();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const manage = () => ({ Authorization: `Bearer ${owner.management_key}` });
type Instruction = { purpose: 'ownership' | 'dkim' | 'dmarc'; name: string; value: string };

/** A domain created, published in the test DNS and verified through the API, with a sender. */
async function readyDomain(name: string, auth = manage()) {
  const created = await api.http.post('/v1/domains').set(auth).send({ name });
  expect(created.status).toBe(201);
  const records = (await api.http.get(`/v1/domains/${created.body.id}/dns`).set(auth)).body.records as Instruction[];
  for (const record of records) h.dns.set(record.name, [{ type: 'TXT', data: record.value }]);
  const checked = await api.http.post(`/v1/domains/${created.body.id}/check-dns`).set(auth);
  expect(checked.body.status).toBe('ready');
  await api.http.post(`/v1/domains/${created.body.id}/senders`).set(auth).send({ email: `hello@${name}` }).expect(201);
  return { id: created.body.id as string, record: (purpose: Instruction['purpose']) => records.find((r) => r.purpose === purpose)! };
}

/** As if the domain's last check had been longer ago than DOMAIN_RECHECK_INTERVAL. */
const makeDue = (id: string) => h.deps.db`update domains set last_check_started_at = now() - interval '2 hours' where id = ${id}`;
const domain = async (id: string) => (await api.http.get(`/v1/domains/${id}`).set(manage())).body;
const send = (from: string) =>
  api.http
    .post('/v1/emails')
    .set('Authorization', `Bearer ${owner.sending_key}`)
    .set('Idempotency-Key', randomUUID())
    .send({ from, to: ['ann@example.test'], subject: 'Hi', content: { plain: 'Hello' } });

describe('the domain re-check', () => {
  it('leaves a domain checked within the interval alone', async () => {
    const fresh = await readyDomain('fresh.test');
    h.dns.remove(fresh.record('dkim').name);
    await recheckDomains(h.deps);
    expect((await domain(fresh.id)).status).toBe('ready');
  });

  it('changes no component on a temporary failure', async () => {
    const flaky = await readyDomain('flaky.test');
    h.dns.fail(flaky.record('dkim').name, 'servfail');
    await makeDue(flaky.id);
    await recheckDomains(h.deps);
    const after = await domain(flaky.id);
    expect(after).toMatchObject({ status: 'ready', dkim: { status: 'verified' }, last_check: { status: 'temporary_failure' } });
    expect((await send('hello@flaky.test')).status).toBe(202);
  });

  it('run by the daemon, makes a record gone missing: the domain is not ready and its senders cannot send', async () => {
    const gone = await readyDomain('gone.test');
    expect((await send('hello@gone.test')).status).toBe(202);
    h.dns.remove(gone.record('dkim').name);
    await makeDue(gone.id);

    const daemon = h.startDaemon();
    const deadline = Date.now() + 10_000;
    while ((await domain(gone.id)).status !== 'not_ready' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await daemon.stop();

    expect(await domain(gone.id)).toMatchObject({
      status: 'not_ready',
      ownership: { status: 'verified' },
      dkim: { status: 'missing' },
      dmarc: { status: 'verified' },
      last_check: { status: 'completed' },
    });
    const refused = await send('hello@gone.test');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('sender_not_allowed');
  });

  it("warns once per re-check about each mailbox provider's requirement a ready domain fails", async () => {
    const account = await api.createAccount();
    const ruled = await readyDomain('ruled.test', { Authorization: `Bearer ${account.management_key}` });
    // 0.2 %: above Gmail's and Microsoft's 0.1 %, below Yahoo's 0.3 %.
    await h.deps.db`
      insert into account_reputation_hours (account_id, stream, hour, terminal, accepted, hard_bounces, complaints)
      values (${account.account.id}, 'broadcast', ${reputationHour(new Date())}, 1000, 1000, 0, 2)`;
    const warnings = () =>
      h.logLines().filter((l) => l.message === "ready domain fails a mailbox provider's requirement" && l.domain === 'ruled.test').map((l) => `${l.provider} ${l.requirement}`);
    await makeDue(ruled.id);
    await recheckDomains(h.deps);
    expect(warnings()).toEqual(['gmail complaint_rate', 'microsoft complaint_rate']);
    await recheckDomains(h.deps);
    expect(warnings()).toHaveLength(2);
  });

  it('checks a bounded number per pass, each due domain once across concurrent daemons', async () => {
    const ids: string[] = [];
    for (let i = 0; i < RECHECK_BATCH_SIZE + 5; i++) ids.push((await readyDomain(`many${i}.test`)).id);
    await h.deps.db`update domains set last_check_started_at = now() - interval '2 hours' where id = any(${ids}::text[])`;

    const [first, second] = await Promise.all([recheckDomains(h.deps), recheckDomains(h.deps)]);
    expect(first).toBeLessThanOrEqual(RECHECK_BATCH_SIZE);
    expect(second).toBeLessThanOrEqual(RECHECK_BATCH_SIZE);
    expect(first + second).toBe(ids.length);
    expect(await recheckDomains(h.deps)).toBe(0);
  });
});
