import { waitForRedis } from '@mailer/queue';
import type { TestApi } from './test-api';

/** The console's session cookie among an answer's Set-Cookie headers. */
export const consoleCookieOf = (setCookie: string[] | string | undefined) => [setCookie ?? []].flat().find((c) => c.startsWith('mailer_console='))!;

/**
 * Signs in to the console with the operator token: the Set-Cookie header, the `name=value` pair to
 * send back, and the session's CSRF token as its pages carry it.
 */
export async function signInToConsole(api: TestApi, token: string, headers: Record<string, string> = {}) {
  // The API's Redis connection queues nothing while it connects: a session needs it up.
  await waitForRedis(api.deps.redis);
  const res = await api.http.post('/console/login').set(headers).type('form').send({ token });
  if (res.status !== 303) throw new Error(`the console's login answered ${res.status}`);
  const cookie = consoleCookieOf(res.headers['set-cookie']);
  const session = cookie.split(';')[0]!;
  const page = await api.http.get('/console/accounts').set('Cookie', session);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  return { cookie, session, csrf };
}
