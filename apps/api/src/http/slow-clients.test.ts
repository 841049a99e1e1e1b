import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../testing/sending-account';
import { listenRaw, readResponse, startTestApi, type SocketClient, type TestApi } from '../testing';

const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let api: TestApi;
let acme: SendingAccount;
let other: SendingAccount;
let raw: Awaited<ReturnType<typeof listenRaw>>;
beforeAll(async () => {
  // A budget of 64 MiB and an account share of one 16 MiB body, so that four slow bodies overrun it; short timeouts so that the attacks outlast them.
  api = await startTestApi({ MAX_BODY_BYTES_IN_FLIGHT: String(64 * MIB), MAX_BODY_BYTES_PER_ACCOUNT: String(16 * MIB), BODY_IDLE_TIMEOUT: '2s', BODY_TIMEOUT: '5s', HTTP_HEADERS_TIMEOUT: '2s' });
  acme = await sendingAccount(api, { limits: GENEROUS_LIMITS });
  other = await sendingAccount(api, { domain: 'other.test', limits: GENEROUS_LIMITS });
  raw = await listenRaw(api);
});
afterAll(async () => {
  await raw.close();
  await api.close();
});

let attackers: SocketClient[] = [];
afterEach(() => {
  for (const attacker of attackers) attacker.destroy();
  attackers = [];
});

function attack(count: number, head: string, trickle: { data: string; everyMs: number } | undefined) {
  for (let i = 0; i < count; i++) {
    const client = raw.connect(head);
    if (trickle) client.trickle(trickle.data, trickle.everyMs);
    attackers.push(client);
  }
  return attackers.slice(-count);
}

/** Gives the server time to take in what the attackers sent: at most `ms`, less once all of them are answered. */
const settle = (clients: SocketClient[], ms = 1_000) => Promise.race([Promise.all(clients.map((c) => c.status)), sleep(ms)]);

/** A well-behaved client's POST /v1/emails, side by side with the attack. */
async function sendNormally(account: SendingAccount) {
  const body = JSON.stringify(account.message());
  const req = raw.open('POST', '/v1/emails', {
    Authorization: account.auth,
    'Idempotency-Key': `normal-${Math.random()}`,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  req.end(body);
  return readResponse(req);
}

const postHead = (account: SendingAccount, framing: string) =>
  `POST /v1/emails HTTP/1.1\r\nHost: api\r\nAuthorization: ${account.auth}\r\nIdempotency-Key: slow-${Math.random()}\r\n` +
  `Content-Type: application/json\r\n${framing}\r\n\r\n`;

describe('slow clients do not stop intake', () => {
  it('anonymous slow bodies on routes that take none are answered without reading them, and their connections closed', async () => {
    const chunk = { data: '1\r\n \r\n', everyMs: 300 };
    const slow = [
      ...attack(4, 'GET /healthz HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\n\r\n', chunk),
      ...attack(1, `GET /healthz HTTP/1.1\r\nHost: api\r\nContent-Length: ${MIB}\r\n\r\n`, { data: ' ', everyMs: 300 }),
      // Refused before its body is read: authentication comes first.
      ...attack(1, 'POST /v1/emails HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', chunk),
    ];
    await settle(slow);
    expect((await sendNormally(other)).status).toBe(202);
    expect(await Promise.all(slow.map((c) => c.status))).toEqual([200, 200, 200, 200, 200, 401]);
    // Closed by the server while the client still trickles.
    for (const text of await Promise.all(slow.map((c) => c.closed))) expect(text).toMatch(/\r\nConnection: close\r\n/i);
  });

  it("a sending key's slow chunked bodies hold only the bytes that arrived: another account is served", async () => {
    const slow = attack(4, postHead(acme, 'Transfer-Encoding: chunked'), { data: '1\r\n \r\n', everyMs: 300 });
    await settle(slow);
    expect((await sendNormally(other)).status).toBe(202);
    // The slow ones are still being received, not refused.
    expect(await Promise.race([Promise.any(slow.map((c) => c.status)), sleep(100).then(() => 'pending')])).toBe('pending');
  });

  it("one account's bodies take at most its share of the budget: the rest get 503 with Retry-After, another account is served", async () => {
    const slow = attack(4, postHead(acme, `Content-Length: ${16 * MIB}`), { data: ' ', everyMs: 300 });
    await settle(slow);
    expect((await sendNormally(other)).status).toBe(202);
    const refused = await Promise.all(slow.slice(1).map((c) => c.closed));
    for (const text of refused) {
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      expect(text).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(text).toContain('"code":"service_unavailable"');
    }
    // The account's own small request waits for its share too; once its slow body is gone, it is served.
    slow[0]!.destroy();
    await slow[0]!.closed;
    while (api.deps.bodyBudget.held > 0) await sleep(20);
    expect((await sendNormally(acme)).status).toBe(202);
  });

  it('a body that stalls for BODY_IDLE_TIMEOUT is cut off with 400 invalid_json and its connection closed', async () => {
    const [stalled] = attack(1, postHead(acme, 'Content-Length: 100'), undefined);
    stalled!.write('{"from":');
    await settle([stalled!], 200);
    expect((await sendNormally(other)).status).toBe(202);
    const text = await stalled!.closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('"code":"invalid_json"');
  });

  it('a body still trickling after BODY_TIMEOUT is cut off with 400 invalid_json and its connection closed', async () => {
    const [trickling] = attack(1, postHead(acme, 'Transfer-Encoding: chunked'), { data: '1\r\n \r\n', everyMs: 300 });
    const text = await trickling!.closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('"code":"invalid_json"');
  });

  it('headers trickled for longer than HTTP_HEADERS_TIMEOUT close the connection', async () => {
    const [slowHeaders] = attack(1, 'GET /healthz HTTP/1.1\r\nHost: api\r\n', { data: 'X-Slow: 1\r\n', everyMs: 300 });
    await settle([slowHeaders!], 200);
    expect((await sendNormally(other)).status).toBe(202);
    expect(await slowHeaders!.closed).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('an idle keep-alive connection outlives HTTP_HEADERS_TIMEOUT: the bound runs from a request’s first byte', async () => {
    const [client] = attack(1, 'GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n', undefined);
    expect(await client!.status).toBe(200);
    await sleep(3_500);
    client!.write('GET /healthz HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n');
    expect((await client!.closed).match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });
});
