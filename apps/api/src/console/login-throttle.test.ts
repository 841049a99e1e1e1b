import { AUTH_THROTTLE_WINDOW_MS, MAX_FAILED_AUTHS, waitForRedis } from '@mailer/queue';
import { startTestApi, type TestApi } from '../testing';

/** POST /console/login is throttled per client address as submission AUTH is (contract 22), the count shared through Redis. */
const OPERATOR_TOKEN = 'operator-token-for-throttle-tests';
let api: TestApi;
beforeAll(async () => {
  // Behind a proxy, so that each test's client address is its X-Forwarded-For.
  api = await startTestApi({ OPERATOR_TOKEN, TRUST_PROXY: 'true' });
  await waitForRedis(api.deps.redis);
});
afterAll(() => api.close());

const login = (from: string, token: string) => api.http.post('/console/login').set('X-Forwarded-For', from).type('form').send({ token });

it('answers exactly the bound of wrong tokens sent at once with 401, then 429 with Retry-After, the right token included, to that address only', async () => {
  const answers = await Promise.all(Array.from({ length: MAX_FAILED_AUTHS + 3 }, () => login('198.51.100.7', 'not-the-token')));
  expect(answers.filter((res) => res.status === 401)).toHaveLength(MAX_FAILED_AUTHS);
  expect(answers.filter((res) => res.status === 429)).toHaveLength(3);

  const blocked = await login('198.51.100.7', OPERATOR_TOKEN);
  expect(blocked.status).toBe(429);
  expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(AUTH_THROTTLE_WINDOW_MS / 1000 - 60);
  expect(blocked.headers['content-type']).toMatch(/^text\/html/);
  expect(blocked.text).toMatch(/<p class="error" role="alert">Too many failed sign-ins from your address; try again in 10 minutes\.<\/p>/);

  expect((await login('198.51.100.8', OPERATOR_TOKEN)).status).toBe(303);
});

it('counts in a key space of its own, apart from submission AUTH', async () => {
  for (let i = 0; i < MAX_FAILED_AUTHS; i++) expect((await login('198.51.100.9', 'wrong')).status).toBe(401);
  const keys = await api.deps.redis.keys(`${api.config.redisPrefix}:auth-throttle:*198.51.100.9*`);
  expect(keys).toEqual([`${api.config.redisPrefix}:auth-throttle:console:198.51.100.9:blocked`]);
});
