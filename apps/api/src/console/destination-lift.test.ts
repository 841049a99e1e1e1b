import { publishDestinationSnapshot, readDestinationLifts } from '@mailer/queue';
import { startTestApi, type TestApi } from '../testing';
import { signInToConsole } from '../testing/console-session';

/** The destinations page lifts a suspension through the CLI's `destination lift` operation. */
const OPERATOR_TOKEN = 'operator-token-for-lift-tests';
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
});
afterAll(() => api.close());

it('offers a suspended destination a lift, and asks the live daemons to try it again', async () => {
  const { session, csrf } = await signInToConsole(api, OPERATOR_TOKEN);
  const suspended = {
    destination: 'mx1.suspended.test,mx2.suspended.test',
    id: 'd_suspended',
    provider: null,
    mxHosts: ['mx1.suspended.test', 'mx2.suspended.test'],
    domains: ['suspended.test'],
    held: 3,
    inFlight: 0,
    concurrency: 1,
    suspendedUntil: new Date(Date.now() + 60_000).toISOString(),
  };
  const healthy = { ...suspended, destination: 'mx.healthy.test', id: 'd_healthy', mxHosts: ['mx.healthy.test'], domains: ['healthy.test'], suspendedUntil: null };
  await publishDestinationSnapshot(api.deps.redis, api.config.redisPrefix, { daemon: 'daemon-1', at: new Date().toISOString(), destinations: [suspended, healthy] });

  const page = await api.http.get('/console/destinations').set('Cookie', session);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Lift the suspension of mx1.suspended.test, mx2.suspended.test');
  expect(page.text).not.toContain('Lift the suspension of mx.healthy.test');

  const lifted = await api.http.post('/console/destinations/lift').set('Cookie', session).type('form').send({ _csrf: csrf, destination: 'd_suspended' });
  expect(lifted.status).toBe(303);
  expect(lifted.headers.location).toBe('/console/destinations');
  expect([...(await readDestinationLifts(api.deps.redis, api.config.redisPrefix)).keys()]).toEqual([suspended.destination]);

  const unknown = await api.http.post('/console/destinations/lift').set('Cookie', session).type('form').send({ _csrf: csrf, destination: 'd_nowhere' });
  expect(unknown.status).toBe(404);
  expect(unknown.text).toContain('No live daemon routes mail to the destination d_nowhere.');
});
