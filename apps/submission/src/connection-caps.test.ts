import { startSubmissionHarness, type SubmissionHarness } from './testing/submission-harness';

/** Sessions per address and in all (SUBMISSION_MAX_CONNECTIONS…), and the time to authenticate (SUBMISSION_AUTH_TIMEOUT). */
let h: SubmissionHarness;

beforeAll(async () => {
  h = await startSubmissionHarness({ SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS: '3', SUBMISSION_MAX_CONNECTIONS: '5', SUBMISSION_AUTH_TIMEOUT: '1s' });
});
afterAll(() => h.close());

const refused = async () => ((await h.deps.metrics.refusedConnections.get()).values[0]?.value ?? 0);

it('answers 421 4.7.0 to the connection past the cap of its address, and to any past the total, on either port', async () => {
  const held = [];
  for (let i = 0; i < 3; i++) {
    const { session, greeting } = await h.raw({ localAddress: '127.0.0.11' });
    expect(greeting).toMatch(/^220 /);
    held.push(session);
  }
  const before = await refused();
  expect((await h.raw({ localAddress: '127.0.0.11' })).greeting).toMatch(/^421 4\.7\.0 /);
  expect((await h.plain({ localAddress: '127.0.0.11' })).greeting).toMatch(/^421 4\.7\.0 /);
  for (const localAddress of ['127.0.0.12', '127.0.0.13']) {
    const { session, greeting } = await h.plain({ localAddress });
    expect(greeting).toMatch(/^220 /);
    held.push(session);
  }
  expect((await h.raw({ localAddress: '127.0.0.14' })).greeting).toMatch(/^421 4\.7\.0 /);
  expect(await refused()).toBe(before + 3);
  held.forEach((session) => session.close());
});

it('closes a session that has not authenticated within SUBMISSION_AUTH_TIMEOUT, though it keeps talking', async () => {
  const { session } = await h.raw({ localAddress: '127.0.0.15' });
  await session.command('EHLO client.test');
  const replies: string[] = [];
  const closed = (async () => {
    for (;;) {
      const reply = await session.command('NOOP').catch(() => undefined);
      if (reply === undefined) return;
      replies.push(reply);
      if (reply.startsWith('421')) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  await closed;
  expect(replies.at(-1)).toMatch(/^421 4\.4\.2 No authentication within 1 s,/);
});
