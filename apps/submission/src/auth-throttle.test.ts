import { MAX_FAILED_AUTHS } from '@mailer/queue';
import { SUBMISSION_USER } from './authenticate';
import { startSubmissionHarness, type SubmissionHarness } from './testing/submission-harness';

describe('the listener under parallel password guessing', () => {
  let h: SubmissionHarness;
  beforeAll(async () => {
    h = await startSubmissionHarness();
  });
  afterAll(() => h.close());

  const wrongAuth = `AUTH PLAIN ${Buffer.from(`\0${SUBMISSION_USER}\0svc_live_${'g'.repeat(40)}`).toString('base64')}`;
  const sessionsFrom = (harness: SubmissionHarness, localAddress: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const { session } = await harness.raw({ localAddress });
        await session.command('EHLO client.test');
        return session;
      }),
    );

  it('answers exactly the bound of 535s to wrong keys sent at once, then 421 4.7.0', async () => {
    const sessions = await sessionsFrom(h, '127.0.0.8', MAX_FAILED_AUTHS + 5);
    const replies = await Promise.all(sessions.map((session) => session.command(wrongAuth)));
    expect(replies.filter((reply) => reply.startsWith('535 5.7.8 '))).toHaveLength(MAX_FAILED_AUTHS);
    expect(replies.filter((reply) => reply.startsWith('421 4.7.0 '))).toHaveLength(5);
    sessions.forEach((session) => session.close());
  });

  it('shares the count between two listener processes', async () => {
    const other = await startSubmissionHarness({ DATABASE_URL: h.config.databaseUrl, REDIS_PREFIX: h.config.redisPrefix });
    try {
      const half = MAX_FAILED_AUTHS / 2;
      for (const harness of [h, other]) {
        for (const session of await sessionsFrom(harness, '127.0.0.9', half)) {
          expect(await session.command(wrongAuth)).toMatch(/^535 5\.7\.8 /);
          session.close();
        }
      }
      for (const harness of [h, other]) expect((await harness.raw({ localAddress: '127.0.0.9' })).greeting).toMatch(/^421 4\.7\.0 /);
    } finally {
      await other.close();
    }
  });
});
