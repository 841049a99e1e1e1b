import { setAccountPlan, type ProvisionedAccount } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';

/** The plan's `max_webhook_endpoints` (docs/api-decisions.md, "Webhooks"). */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const call = (account: ProvisionedAccount, method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
  const req = api.http[method](path).set('Authorization', `Bearer ${account.management_key}`);
  return body ? req.send(body) : req;
};
const create = (account: ProvisionedAccount, n: number) => call(account, 'post', '/v1/webhooks', { url: `https://hooks${n}.example.com/mailer` });

async function accountWithMaxEndpoints(max: number): Promise<ProvisionedAccount> {
  const account = await api.createAccount();
  await setAccountPlan(api.deps.db, account.account.id, { maxWebhookEndpoints: max });
  return account;
}

const endpointsOf = async (account: ProvisionedAccount) => {
  const [row] = await api.deps.db`select count(*)::int as n from webhook_endpoints where account_id = ${account.account.id} and deleted_at is null`;
  return row!.n;
};

describe('max_webhook_endpoints', () => {
  it('is 10 on the free plan, and a new custom plan carries it over', async () => {
    const [free] = await api.deps.db`select max_webhook_endpoints from plans where id = 'plan_free'`;
    expect(free!.max_webhook_endpoints).toBe(10);
    const account = await api.createAccount();
    expect(await setAccountPlan(api.deps.db, account.account.id, { perMinute: 60 })).toMatchObject({ maxWebhookEndpoints: 10 });
  });

  it('refuses an endpoint beyond the limit with 409 webhook_limit_exceeded, counts disabled ones, and a deletion frees a place', async () => {
    const account = await accountWithMaxEndpoints(2);
    const first = await create(account, 1);
    expect(first.status).toBe(201);
    const second = await create(account, 2);
    expect(second.status).toBe(201);
    expect((await call(account, 'patch', `/v1/webhooks/${second.body.id}`, { status: 'disabled' })).status).toBe(200);

    const refused = await create(account, 3);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: { code: 'webhook_limit_exceeded', message: expect.stringContaining('(2)') } });
    expect(await endpointsOf(account)).toBe(2);

    expect((await call(account, 'delete', `/v1/webhooks/${first.body.id}`)).status).toBe(204);
    expect((await create(account, 3)).status).toBe(201);
    expect((await create(account, 4)).status).toBe(409);
  });

  it('holds against concurrent creations', async () => {
    // Three accounts at once, so that each race is run a few times.
    const accounts = await Promise.all([4, 4, 4].map(accountWithMaxEndpoints));
    const answers = await Promise.all(accounts.map((account) => Promise.all(Array.from({ length: 12 }, (_, i) => create(account, i)))));
    for (const [i, account] of accounts.entries()) {
      expect(answers[i]!.map((res) => res.status).sort()).toEqual([...Array(4).fill(201), ...Array(8).fill(409)]);
      for (const res of answers[i]!.filter((r) => r.status === 409)) expect(res.body.error.code).toBe('webhook_limit_exceeded');
      expect(await endpointsOf(account)).toBe(4);
    }
  });
});
