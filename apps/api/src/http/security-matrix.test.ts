import { freePort } from '@mailer/testing';
import { startTestApi, type TestApi } from '../testing';
import { consoleCookieOf, signInToConsole } from '../testing/console-session';

/**
 * The security matrix of the operator surfaces: for each, what a request without a session, with a
 * wrong token or without its CSRF token gets, and what the session cookie and the pages promise.
 */
const OPERATOR_TOKEN = 'operator-token-for-security-tests';
let api: TestApi;
let proxied: TestApi;
beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
  proxied = await startTestApi({ OPERATOR_TOKEN, TRUST_PROXY: 'true' });
});
afterAll(async () => {
  await api.close();
  await proxied.close();
});

const signIn = (target: TestApi, headers: Record<string, string> = {}) => signInToConsole(target, OPERATOR_TOKEN, headers);

describe('operator console security', () => {
  it('without a session: pages redirect to the login page, changes are refused, Bull Board asks for the token', async () => {
    for (const path of ['/console', '/console/accounts', '/console/emails', '/console/destinations']) {
      const res = await api.http.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.location).toMatch(/^\/console(\/login|\/accounts)$/);
    }
    const change = await api.http.post('/console/accounts').type('form').send({ name: 'Nobody', _csrf: 'x' });
    expect(change.status).toBe(401);
    expect(change.body.error.code).toBe('unauthorized');
    expect((await api.http.get('/admin/queues/')).status).toBe(401);
    const forged = await api.http.get('/console/accounts').set('Cookie', 'mailer_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(forged.headers.location).toBe('/console/login');
  });

  it('is off without OPERATOR_TOKEN, and says so', async () => {
    const off = await startTestApi();
    try {
      const res = await off.http.post('/console/login').type('form').send({ token: OPERATOR_TOKEN });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('operator_token_not_configured');
      expect(res.headers['set-cookie']).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('answers 503 while Redis, where sessions live, is unreachable', async () => {
    const port = await freePort();
    const noRedis = await startTestApi({ OPERATOR_TOKEN, REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      const res = await noRedis.http.post('/console/login').type('form').send({ token: OPERATOR_TOKEN });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.headers['set-cookie']).toBeUndefined();
    } finally {
      await noRedis.close();
    }
  });

  it('refuses a wrong token and opens no session; an account key is no operator token', async () => {
    const account = await api.createAccount();
    for (const token of ['wrong-token-of-enough-length', account.management_key, '']) {
      const res = await api.http.post('/console/login').type('form').send({ token });
      expect(res.status).toBe(401);
      expect(res.text).toContain('The operator token is not valid.');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a change without the CSRF token, with another session\'s, or from another site', async () => {
    const mine = await signIn(api);
    const other = await signIn(api);
    const create = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      api.http.post('/console/accounts').set('Cookie', mine.session).set(headers).type('form').send(fields);
    for (const res of [await create({ name: 'No token' }), await create({ name: 'Other token', _csrf: other.csrf })]) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('cross_site_request');
    }
    const crossSite = await create({ name: 'Cross site', _csrf: mine.csrf }, { 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const loginFromElsewhere = await api.http.post('/console/login').set('Origin', 'https://evil.example').type('form').send({ token: OPERATOR_TOKEN });
    expect(loginFromElsewhere.status).toBe(403);
    expect((await api.deps.db`select count(*)::int as n from accounts where name in ('No token', 'Other token', 'Cross site')`)[0]!.n).toBe(0);
    const logoutWithout = await api.http.post('/console/logout').set('Cookie', mine.session).type('form').send({});
    expect(logoutWithout.status).toBe(403);
    const good = await create({ name: 'With token', _csrf: mine.csrf });
    expect(good.status).toBe(200);
  });

  it('sets the session cookie HttpOnly and SameSite=Strict, Secure behind a trusted HTTPS proxy only, and ends it at logout', async () => {
    const plain = await signIn(api);
    expect(plain.cookie).toMatch(/; HttpOnly/);
    expect(plain.cookie).toMatch(/; SameSite=Strict/);
    expect(plain.cookie).not.toMatch(/Secure/);
    // Without TRUST_PROXY a client's X-Forwarded-Proto is not believed.
    expect((await signIn(api, { 'X-Forwarded-Proto': 'https' })).cookie).not.toMatch(/Secure/);
    const secure = await signIn(proxied, { 'X-Forwarded-Proto': 'https' });
    expect(secure.cookie).toMatch(/; Secure/);
    expect(secure.cookie).toMatch(/; HttpOnly/);

    const out = await api.http.post('/console/logout').set('Cookie', plain.session).type('form').send({ _csrf: plain.csrf });
    expect(out.status).toBe(303);
    expect(consoleCookieOf(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expect((await api.http.get('/console/accounts').set('Cookie', plain.session)).headers.location).toBe('/console/login');
  });

  it("moves Bull Board's page asked for with Basic credentials onto a session at a URL without them", async () => {
    const basic = `Basic ${Buffer.from(`ops:${OPERATOR_TOKEN}`).toString('base64')}`;
    const res = await api.http.get('/admin/queues').set('Authorization', basic).set('Host', 'ops.example:3000');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('http://ops.example:3000/admin/queues/');
    const cookie = consoleCookieOf(res.headers['set-cookie']);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect((await api.http.get('/admin/queues/').set('Cookie', cookie.split(';')[0]!)).status).toBe(200);
    // Its API, and a client with the token as Bearer, are answered as before.
    expect((await api.http.get('/admin/queues/api/queues').set('Authorization', basic)).status).toBe(200);
    expect((await api.http.get('/admin/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN}`)).status).toBe(200);
    const wrong = await api.http.get('/admin/queues').set('Authorization', `Basic ${Buffer.from('ops:wrong-token-of-length').toString('base64')}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('ends a session left idle for CONSOLE_SESSION_IDLE_TIMEOUT; each request starts the period again', async () => {
    const idleMs = api.config.console.sessionIdleTimeoutMs;
    const { session } = await signIn(api);
    const keys = await api.deps.redis.keys(`${api.config.redisPrefix}:console:session:*`);
    const ttls = await Promise.all(keys.map((key) => api.deps.redis.pttl(key)));
    expect(ttls.every((ttl) => ttl > 0 && ttl <= idleMs)).toBe(true);
    const key = keys[ttls.indexOf(Math.max(...ttls))]!;
    await api.deps.redis.pexpire(key, 60_000);
    expect((await api.http.get('/console/accounts').set('Cookie', session)).status).toBe(200);
    expect(await api.deps.redis.pttl(key)).toBeGreaterThan(60_000);
    // Expire it as the idle timeout would, without waiting for the clock.
    await api.deps.redis.pexpire(key, 1);
    while ((await api.deps.redis.exists(key)) === 1) await new Promise((resolve) => setImmediate(resolve));
    expect((await api.http.get('/console/accounts').set('Cookie', session)).headers.location).toBe('/console/login');
  });

  it('sends a Content-Security-Policy that allows this origin only, on the console and on Bull Board', async () => {
    const { session } = await signIn(api);
    const consolePage = await api.http.get('/console/accounts').set('Cookie', session);
    const dashboard = await api.http.get('/admin/queues/').set('Cookie', session);
    expect(dashboard.status).toBe(200);
    for (const res of [consolePage, dashboard, await api.http.get('/console/login')]) {
      const policy = res.headers['content-security-policy'] as string;
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/https?:|\*/);
    }
    expect(dashboard.text).not.toMatch(/https?:\/\//);
  });

  it('loads its first page in under 200 KB: the page, its stylesheet and its script', async () => {
    const login = await api.http.get('/console/login');
    const assets = [...login.text.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    let bytes = Buffer.byteLength(login.text);
    for (const asset of assets) {
      const res = await api.http.get(asset).buffer(true).parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(res.status).toBe(200);
      bytes += (res.body as Buffer).length;
    }
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(200 * 1024);
  });
});
