import { MAX_BODY_BYTES } from '@mailer/domain';
import { sendingAccount, type SendingAccount } from '../testing/sending-account';
import { listenRaw, readResponse, startTestApi, type TestApi } from '../testing';

/** MAX_BODY_BYTES_PER_ACCOUNT by default (contract 22): four bodies of the largest size per account at once, within the process's bound. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A message padded with JSON whitespace to the largest body the API takes. */
const maximalBody = (account: SendingAccount) => {
  const json = JSON.stringify(account.message());
  return Buffer.from(json + ' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(json)));
};

/** Opens `count` requests of `account` that declare a maximal body, sends none, and waits until the API holds `held` bytes. */
async function declared(api: TestApi, raw: Awaited<ReturnType<typeof listenRaw>>, account: SendingAccount, count: number, held: number) {
  const requests = Array.from({ length: count }, () =>
    raw.open('POST', '/v1/emails', { Authorization: account.auth, 'Idempotency-Key': `k-${Math.random()}`, 'Content-Type': 'application/json', 'Content-Length': MAX_BODY_BYTES }),
  );
  for (const req of requests) req.flushHeaders();
  const answers = requests.map(readResponse);
  while (api.deps.bodyBudget.held < held) await sleep(20);
  return { requests, answers };
}

/** An API of `env` for the tests of a describe block, with a raw-socket client of it. */
function apiFor(env: Record<string, string>) {
  const started: { api?: TestApi; raw?: Awaited<ReturnType<typeof listenRaw>> } = {};
  beforeAll(async () => {
    started.api = await startTestApi(env);
    started.raw = await listenRaw(started.api);
  });
  afterAll(async () => {
    await started.raw!.close();
    await started.api!.close();
  });
  return () => ({ api: started.api!, raw: started.raw! });
}

describe('the default share of an account', () => {
  const started = apiFor({});

  it('takes four maximal bodies of one account at once', async () => {
    const { api, raw } = started();
    const acme = await sendingAccount(api);
    const body = maximalBody(acme);
    const { requests, answers } = await declared(api, raw, acme, 4, 4 * MAX_BODY_BYTES);
    for (const req of requests) req.end(body);
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
  });
});

describe('the bound of the process', () => {
  const started = apiFor({ MAX_BODY_BYTES_IN_FLIGHT: String(2 * MAX_BODY_BYTES) });

  it("refuses another account's body with 503 and Retry-After once the process holds its MAX_BODY_BYTES_IN_FLIGHT", async () => {
    const { api, raw } = started();
    const acme = await sendingAccount(api);
    const other = await sendingAccount(api, { domain: 'other.test' });
    const { requests, answers } = await declared(api, raw, acme, 2, 2 * MAX_BODY_BYTES);
    const refused = await (await declared(api, raw, other, 1, 0)).answers[0]!;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text).error).toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/^Too many bodies/) });
    const body = maximalBody(acme);
    for (const req of requests) req.end(body);
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([202, 202]);
  });
});
