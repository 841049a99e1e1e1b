import { setAccountPlan, type ProvisionedAccount } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';

/** The plan's `max_domains` and the cost of a creation (docs/api-decisions.md, "Domains"). */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const create = (account: ProvisionedAccount, body: Record<string, unknown>) =>
  api.http.post('/v1/domains').set('Authorization', `Bearer ${account.management_key}`).send(body);

async function accountWithMaxDomains(max: number): Promise<ProvisionedAccount> {
  const account = await api.createAccount();
  await setAccountPlan(api.deps.db, account.account.id, { maxDomains: max });
  return account;
}

describe('max_domains', () => {
  it('is 100 on the free plan', async () => {
    const [free] = await api.deps.db`select max_domains from plans where id = 'plan_free'`;
    expect(free!.max_domains).toBe(100);
  });

  it('refuses a domain beyond the limit with 409 domain_limit_exceeded; retries and deletions still work', async () => {
    const account = await accountWithMaxDomains(2);
    const first = await create(account, { name: 'one.example.com', external_id: 'one' });
    expect(first.status).toBe(201);
    expect((await create(account, { name: 'two.example.com' })).status).toBe(201);

    const refused = await create(account, { name: 'three.example.com' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: { code: 'domain_limit_exceeded', message: expect.stringContaining('(2)') },
    });
    // A natural retry creates nothing: still 200 at the limit.
    expect((await create(account, { name: 'one.example.com', external_id: 'one' })).status).toBe(200);

    await api.http.delete(`/v1/domains/${first.body.id}`).set('Authorization', `Bearer ${account.management_key}`).expect(204);
    expect((await create(account, { name: 'three.example.com' })).status).toBe(201);
  });

  it('holds against concurrent creations', async () => {
    const account = await accountWithMaxDomains(4);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(account, { name: `race${i}.example.com` })));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(4).fill(201), ...Array(8).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).toBe('domain_limit_exceeded');
    const [active] = await api.deps.db`select count(*)::int as n from domains where account_id = ${account.account.id} and deleted_at is null`;
    expect(active!.n).toBe(4);
  });
});

describe('DKIM key generation', () => {
  // That each key is made off the event loop is generateDkimKeyPair's test (packages/domain).
  it('keeps /healthz answering during 10 concurrent creations', async () => {
    const account = await api.createAccount();
    let creating = true;
    const creations = Promise.all(Array.from({ length: 10 }, (_, i) => create(account, { name: `busy${i}.example.com` }))).finally(
      () => (creating = false),
    );
    let answeredMeanwhile = 0;
    while (creating) {
      await api.http.get('/healthz').expect(200);
      if (creating) answeredMeanwhile++;
    }
    expect((await creations).every((res) => res.status === 201)).toBe(true);
    expect(answeredMeanwhile).toBeGreaterThan(0);
  });
});
