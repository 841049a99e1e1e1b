import { startTestApi, type TestApi } from '@mailer/api/testing';
import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

let api: TestApi;
let dns: TestDnsServer;
let testCli: TestCli;
beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi();
  testCli = startTestCli(api.deps.db, { dnsServers: [dns.address] });
});
afterAll(async () => {
  await testCli.close();
  await api.close();
  await dns.close();
});

describe('domain check, against the API', () => {
  it("prints the domain exactly as the API's GET /v1/domains/{id} shows it after the check", async () => {
    const owner = await api.createAccount();
    const auth = { Authorization: `Bearer ${owner.management_key}` };
    const created = await api.http.post('/v1/domains').set(auth).send({ name: 'cli-check.example.test' });
    const { records } = (await api.http.get(`/v1/domains/${created.body.id}/dns`).set(auth)).body;
    for (const record of records) dns.set(record.name, [{ type: 'TXT', data: record.value }]);

    const { status, stdout } = await testCli.run('domain', 'check', created.body.id, '--json');

    expect(status).toBe(0);
    const printed = JSON.parse(stdout);
    expect(printed).toMatchObject({ status: 'ready', last_check: { status: 'completed' } });
    expect(printed).toEqual((await api.http.get(`/v1/domains/${created.body.id}`).set(auth)).body);
  });
});
