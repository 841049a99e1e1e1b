import { MAX_FAILED_AUTHS } from '@mailer/queue';
import { SUBMISSION_USER } from './authenticate';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/** The STARTTLS port before TLS (contract 22): AUTH is not listed, and one sent anyway is refused unread. */
let h: SubmissionHarness;
let acme: SubmittingAccount;

beforeAll(async () => {
  h = await startSubmissionHarness({ LOG_LEVEL: 'debug' });
  acme = await h.account();
});
afterAll(() => h.close());

const extensions = (ehlo: string) => ehlo.split('\r\n').slice(1).map((line) => line.slice(4));
const plainAuth = (key: string) => `AUTH PLAIN ${Buffer.from(`\0${SUBMISSION_USER}\0${key}`).toString('base64')}`;

it('lists STARTTLS and no AUTH before TLS, and AUTH PLAIN LOGIN without STARTTLS after it', async () => {
  const { session, greeting, upgrade } = await h.plain();
  expect(greeting).toMatch(/^220 /);
  const before = extensions(await session.command('EHLO client.test'));
  expect(before).toContain('STARTTLS');
  expect(before.filter((extension) => /^AUTH\b/.test(extension))).toEqual([]);
  expect(await session.command('STARTTLS')).toMatch(/^220 /);
  const secure = upgrade();
  const after = extensions(await secure.command('EHLO client.test'));
  expect(after).toContain('AUTH PLAIN LOGIN');
  expect(after).not.toContain('STARTTLS');
  expect(await secure.command(plainAuth(acme.sendingKey))).toMatch(/^235 /);
  secure.close();
});

it('refuses AUTH before TLS with 538, looking up, counting and logging nothing of it', async () => {
  const lookups = jest.spyOn(h.deps.keys, 'submit');
  const failuresBefore = (await h.deps.metrics.authFailures.get()).values[0]?.value ?? 0;
  const wrongKey = `svc_live_${'w'.repeat(40)}`;
  for (let i = 0; i <= MAX_FAILED_AUTHS; i++) {
    const { session } = await h.plain({ localAddress: '127.0.0.7' });
    await session.command('EHLO client.test');
    expect(await session.command(plainAuth(i === 0 ? acme.sendingKey : wrongKey))).toMatch(/^538 5\.7\.0 /);
    expect(await session.command('AUTH LOGIN')).toMatch(/^538 5\.7\.0 /);
    session.close();
  }
  expect(lookups).not.toHaveBeenCalled();
  lookups.mockRestore();
  expect((await h.deps.metrics.authFailures.get()).values[0]?.value ?? 0).toBe(failuresBefore);
  expect(await h.deps.throttle.check('127.0.0.7')).toEqual({ blocked: false });
  expect(await h.deps.redis.keys(`${h.config.redisPrefix}:auth-throttle:*`)).toEqual([]);
  for (const secret of [acme.sendingKey, wrongKey, Buffer.from(`\0${SUBMISSION_USER}\0${wrongKey}`).toString('base64')]) {
    expect(h.logs.filter((line) => line.includes(secret))).toEqual([]);
  }

  // The same address, over TLS: nothing held against it.
  const { session, upgrade } = await h.plain({ localAddress: '127.0.0.7' });
  await session.command('EHLO client.test');
  await session.command('STARTTLS');
  const secure = upgrade();
  await secure.command('EHLO client.test');
  expect(await secure.command(plainAuth(acme.sendingKey))).toMatch(/^235 /);
  secure.close();
});
